#!/usr/bin/env bash
# `npm ci` in the current directory (its package-lock.json), failing when npm
# warns that a package's `engines` exclude this Node (EBADENGINE): such a
# package may use what this Node lacks, and the warning would scroll by
# unread. Used by every script that runs npm ci.
set -euo pipefail
out=$(npm ci --no-audit --no-fund --loglevel=warn "$@" 2>&1) || { printf '%s\n' "$out" >&2; exit 1; }
printf '%s\n' "$out"
if grep -q EBADENGINE <<<"$out"; then
  echo "npm ci in $PWD: a package's engines exclude Node $(node --version) (EBADENGINE, above)" >&2
  exit 1
fi
