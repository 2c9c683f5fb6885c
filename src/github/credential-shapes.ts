/** GitHub's tokens by their shape: installation (`ghs_`), personal (`ghp_`, `github_pat_`), OAuth and refresh — minted while the service runs, held in no configured value. */
export const GITHUB_TOKEN_SHAPES: readonly RegExp[] = [/\b(?:gh[opsur]_|github_pat_)[A-Za-z0-9_-]{16,}/g];
