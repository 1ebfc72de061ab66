"""Checks a Mach-O file's header as a macOS loader reads it: 64-bit, the CPU
the target names, and the minimum macOS it asks for (LC_BUILD_VERSION, or
LC_VERSION_MIN_MACOSX in older linkers' output). Used by `make dist`
(.ci/dist.sh) for every macOS artifact; nothing here runs the file.

Usage: macho.py FILE ARCH MIN_MACOS   (ARCH: arm64 or x86_64; MIN_MACOS: 11.0)
"""

import struct
import sys

MAGIC_64 = 0xFEEDFACF
CPU = {"x86_64": 0x01000007, "arm64": 0x0100000C}
LC_BUILD_VERSION = 0x32
LC_VERSION_MIN_MACOSX = 0x24
PLATFORM_MACOS = 1


def version(packed):
    return f"{packed >> 16}.{(packed >> 8) & 0xFF}"


def minimum_macos(data, ncmds):
    offset = 32  # mach_header_64
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        if cmd == LC_BUILD_VERSION:
            platform, minos = struct.unpack_from("<II", data, offset + 8)
            if platform == PLATFORM_MACOS:
                return version(minos)
        if cmd == LC_VERSION_MIN_MACOSX:
            return version(struct.unpack_from("<I", data, offset + 8)[0])
        offset += size
    return None


def main(path, arch, want):
    with open(path, "rb") as f:
        data = f.read(1 << 16)
    magic, cputype, _sub, filetype, ncmds = struct.unpack_from("<IiiII", data, 0)
    problems = []
    if magic != MAGIC_64:
        problems.append(f"magic {magic:#x}, not 64-bit Mach-O")
    elif cputype != CPU[arch]:
        problems.append(f"CPU type {cputype:#x}, not {arch}")
    else:
        found = minimum_macos(data, ncmds)
        if found != want:
            problems.append(f"minimum macOS {found}, not {want}")
    if problems:
        print(f"macho: {path}: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(f"macho: {path}: Mach-O 64-bit {arch}, filetype {filetype}, macOS {want}+")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
