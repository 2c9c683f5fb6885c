import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/spawn-cli.js';

/** A function and how many lines it spans, first to last. */
export interface FunctionLength {
  where: string;
  name: string;
  lines: number;
}

function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText();
  return '(anonymous)';
}

/** Every function, method and arrow function in `files` spanning more than `limit` lines, longest first. */
export function longFunctions(files: readonly string[], limit: number): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (last - first + 1 > limit) found.push({ where: `${relative(ROOT, file)}:${first + 1}`, name: nameOf(node), lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => b.lines - a.lines);
}
