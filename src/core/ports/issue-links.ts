/**
 * The `IssueLinker` port: finds the issue a request names (a chat mention naming `ENG-123` or an
 * issue URL), so that the run is bound to it too — the issue becomes another place of the run. The
 * issue tracker's adapter brings it (docs/architecture.md, "Adding a surface"); the intake worker asks it in the background, never the
 * edge.
 */

/** An issue a request names, found and allowed: where its messages go and what the prompt learns of it. */
export interface LinkedIssue {
  /** The issue's anchor and destination (`<surface>:<issue id>`). */
  anchor: string;
  /** Other anchors of the same issue (`<surface>:ENG-7`), as `StartPayload.otherAnchors`. */
  otherAnchors: string[];
  /** What people see (`ENG-7`). */
  ref: string;
  title: string;
  url: string;
  /** The issue's context for the prompt: marked, quoted (foreign content, not instructions) and bounded. */
  context: string;
}

/** The issue, or why the request cannot be bound to the issue it names (said in words to the asker). */
export type IssueLookup = { kind: 'linked'; issue: LinkedIssue } | { kind: 'refused'; reason: string };

export interface IssueLinker {
  /**
   * The issue `text` names, if it names one (undefined when it names none). An unknown issue, or one
   * of a team the bridge does not serve, is `refused`; a passing failure (network, rate limit) throws,
   * and the worker retries the request.
   */
  lookup(text: string): Promise<IssueLookup | undefined>;
}
