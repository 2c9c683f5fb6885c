/**
 * Skill specifications (`owner/repo:path/to/SKILL.md`, `repo:skill_name`, …) as the run API takes
 * them in `skill` or `config.skill_spec`, and what a run created from one reports.
 */

export interface SkillView {
  /** Path of the SKILL.md file, for file-based skills. */
  full_path?: string;
  name: string;
}

/** The part after the repository: `path/to/SKILL.md` or a simple skill name. */
function skillPath(spec: string): string {
  const colon = spec.indexOf(':');
  return colon === -1 ? spec : spec.slice(colon + 1);
}

/** The skill's name: the folder of a `…/SKILL.md`, the file name of another `.md`, else the last segment. */
export function skillName(spec: string): string {
  const segments = skillPath(spec)
    .split('/')
    .filter((part) => part !== '');
  const last = segments[segments.length - 1] ?? spec;
  if (/^skill\.md$/i.test(last)) return segments[segments.length - 2] ?? last;
  return last.replace(/\.md$/i, '');
}

/** RunItem.agent_skill of a run created with `spec`. */
export function skillView(spec: string): SkillView {
  const path = skillPath(spec);
  const fileBased = path.includes('/') || /\.md$/i.test(path);
  return fileBased ? { full_path: path, name: skillName(spec) } : { name: skillName(spec) };
}

/**
 * The prompt of a run asked for with a skill and no prompt. The real service gives the agent the
 * skill's own instructions; the emulator has none, so the run reports (and "works" on) this line.
 */
export function skillPrompt(spec: string): string {
  return `Run the skill ${spec}`;
}
