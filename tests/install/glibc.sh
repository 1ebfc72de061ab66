#!/usr/bin/env bash
# glibc.sh FILE MAX: prints the newest glibc symbol version FILE (an ELF shared
# object) needs, from its dynamic symbol table (`readelf --dyn-syms`, e.g.
# `memcpy@GLIBC_2.14`), and fails when it is newer than MAX (e.g. 2.17): such
# a file does not load on a system with glibc MAX.
set -euo pipefail
file=$1 max=$2
versions=$(readelf --dyn-syms --wide "$file" | grep -o '@GLIBC_[0-9][0-9.]*' | sed 's/^@GLIBC_//' | sort -Vu)
[ -n "$versions" ] || { echo "glibc: no versioned glibc symbol in $file" >&2; exit 1; }
newest=$(tail -1 <<<"$versions")
printf 'glibc: %s needs GLIBC_%s at most (allowed: %s)\n' "$(basename "$file")" "$newest" "$max"
if [ "$(printf '%s\n%s\n' "$newest" "$max" | sort -V | tail -1)" != "$max" ]; then
  echo "glibc: $file needs GLIBC_$newest, newer than $max; its symbols of glibc > $max:" >&2
  readelf --dyn-syms --wide "$file" | grep -o '[^ ]*@GLIBC_[0-9][0-9.]*' | sort -u |
    while IFS=@ read -r sym ver; do
      [ "$(printf '%s\n%s\n' "${ver#GLIBC_}" "$max" | sort -V | tail -1)" = "$max" ] || echo "  $sym@$ver" >&2
    done
  exit 1
fi
