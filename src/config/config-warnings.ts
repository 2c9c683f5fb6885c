/**
 * A configuration that is valid but does less than its owner surely meant: an integration that is on
 * with nothing that could ever start a run through it, or a link to a tracker that is off. It starts
 * (the owner may be setting things up step by step), but `serve` logs each warning at start and
 * `config check` prints them, with the key to add.
 */
import type { ConfigProblem } from './problems.js';
import { sectionOf, SURFACE_SLICES } from './surface-slices.js';
import type { AppConfig } from './types.js';

/** The warnings of a loaded configuration; `label` names the config file as its problems do. */
export function configWarnings(config: AppConfig, label: string): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  const isOn = (surface: string) => SURFACE_SLICES.some(({ name }) => name === surface && sectionOf(config, name).enabled);
  for (const { name, config: slice } of SURFACE_SLICES) warnings.push(...slice.warnings(sectionOf(config, name), label, isOn));
  return warnings;
}
