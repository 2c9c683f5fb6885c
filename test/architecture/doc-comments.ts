import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { commentsOf } from './comments.js';

/** Whether every statement before `offset` is an import (or a re-export): the first doc comment there is the file's header. */
function beforeAnyDeclaration(source: ts.SourceFile, offset: number): boolean {
  return source.statements
    .filter((statement) => statement.end <= offset)
    .every((statement) => ts.isImportDeclaration(statement) || (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined));
}

/**
 * Doc comments that document nothing: each followed, with nothing but blank space between, by
 * another doc comment, which is what a declaration's doc looks like once the declaration moved away
 * from it. A file's header (its first doc comment, before anything but imports) is the file's, and may be.
 * Each as `file:line: first line`.
 */
export function strandedDocComments(root: string, files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const docs = commentsOf(file).filter((comment) => comment.text.startsWith('/**') && comment.text !== '/**/');
    const stacked = docs.filter((doc, index) => {
      const next = docs[index + 1];
      return next !== undefined && text.slice(doc.start + doc.text.length, next.start).trim() === '';
    });
    if (stacked.length === 0) return [];
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    return stacked
      .filter((doc) => doc !== docs[0] || !beforeAnyDeclaration(source, doc.start))
      .map((doc) => `${relative(root, file)}:${doc.line}: ${doc.text.split('\n')[0]?.trim() ?? ''}`);
  });
}
