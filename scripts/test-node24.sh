#!/usr/bin/env bash
# `npm run test:node24`: the tests that can fail on one Node and pass on another, run again on Node 24,
# the newest LTS people run, after `npm test` ran every test on the Node of this machine. The selection
# is the vitest project in vitest.node24.config.ts, whose comment says the rule and why: every test
# under test/ (end-to-end: the whole service, the command line, the installed package, child
# processes, the platform fakes' servers) but the stress suites, the architecture checks and the
# browser tests, plus the unit tests of the src/ folders that rest on Node itself (store's native
# module, http, agent-api, emulator, cli, host, log, console, people, cron-calendar). Pure logic
# (parsers, formatters, schemas, the core's rules) behaves the same on every Node and runs once, in
# `npm test`; test/architecture/node24-pass.test.ts holds the selection to the rule. Arguments go to
# `vitest run` (`npm run test:node24 -- test/cli` runs that folder's share of the pass).
#
# Node 24 comes from the npm registry (the `node-<os>-<arch>` package, headers included), so nothing
# else is downloaded. The tests run in a copy of this checkout whose native module (better-sqlite3) is
# built against Node 24's headers: this checkout's node_modules stay built for the Node that runs
# `npm test` and `npm start` (also when node_modules is a link to another checkout's, as in a git
# worktree: the copy gets node_modules of its own). The build is kept beside Node 24 and reused while
# the better-sqlite3 and Node versions are the same: building it takes over a minute of one core.
#
#   NODE24_VERSION   the version or range to test (default: 24, the newest 24.x)
#   NODE24_HOME      where that Node and its build of better-sqlite3 are kept between runs
#                    (default: a folder in the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."

version="${NODE24_VERSION:-24}"
package="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
home="${NODE24_HOME:-${TMPDIR:-/tmp}/agent-bridge-node24}"

if [ ! -x "$home/node_modules/$package/bin/node" ] || ! "$home/node_modules/$package/bin/node" -e "process.exit(process.versions.node.startsWith('${version%%.*}.') ? 0 : 1)"; then
  echo "test:node24: installing ${package}@${version} from the npm registry into $home"
  mkdir -p "$home"
  npm install --prefix "$home" --no-save --no-package-lock --no-audit --no-fund "${package}@${version}" >/dev/null
fi
node24="$home/node_modules/$package"
[ -x "$node24/bin/node" ] || { echo "test:node24: $package has no bin/node in $node24" >&2; exit 1; }

if [ ! -d node_modules ] || [ ! -f dist/cli.js ]; then
  echo 'test:node24: run `npm install` (or `npm ci`) first' >&2
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/agent-bridge-node24-run.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The checkout as it is (uncommitted changes included), without git's own folder; node_modules is
# copied from where it really is, so that the build below never reaches this checkout's through a link.
tar --exclude=./.git --exclude=./node_modules -cf - . | tar -xf - -C "$work"
mkdir "$work/node_modules"
tar -C node_modules/ -cf - . | tar -xf - -C "$work/node_modules"

export PATH="$node24/bin:$PATH"
echo "test:node24: $(node --version) in $work"
cd "$work"
driver="$(node -p "require('./node_modules/better-sqlite3/package.json').version")"
built="$home/better-sqlite3-$driver-node$(node -p 'process.versions.node').node"
release=node_modules/better-sqlite3/build/Release
if [ -f "$built" ]; then
  mkdir -p "$release" && rm -f "$release/better_sqlite3.node" && cp "$built" "$release/better_sqlite3.node"
else
  # Build against Node 24's headers (npm's nodedir; npm 12 reads it from the environment), then keep
  # the module: a copy renamed into place, so that a run beside this one never reads half a file.
  npm_config_nodedir="$node24" npm rebuild better-sqlite3 --nodedir="$node24" >/dev/null
  cp "$release/better_sqlite3.node" "$built.$$" && mv -f "$built.$$" "$built"
fi
node -e "require('better-sqlite3')(':memory:').prepare('select 1').get()" ||
  { echo "test:node24: better-sqlite3 does not load on $(node --version); delete $built to build it again" >&2; exit 1; }
node node_modules/vitest/vitest.mjs run --config vitest.node24.config.ts "$@"
