#!/usr/bin/env python3
# The module seal (runtime/dlc_abi.h) in Python: hash, reseal, find a symbol's bytes — for hostile-module tests.
"""Helpers for tests that edit compiled modules.

``hash64`` is dlc_abi_hash64 (runtime/dlc_abi.h), bit for bit; ``reseal``
replaces a module file's seal with one matching its (edited) body, the way a
tool that knows the format could; ``symbol_offset`` gives the file offset of a
dynamic symbol (through llvm-nm and the ELF program headers).
"""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

M64 = (1 << 64) - 1
P1, P2, P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
SEAL_SIZE = 32
MAGIC = b"dlc-seal"


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def hash64(data: bytes) -> int:
    n = len(data)
    lane = [(P1 + P2) & M64, P2, 0, (-P1) & M64]
    full = n - n % 32
    for i in range(0, full, 32):
        for k, w in enumerate(struct.unpack_from("<4Q", data, i)):
            lane[k] = (_rotl((lane[k] + w * P2) & M64, 31) * P1) & M64
    h = (n * P3) & M64
    for k in range(4):
        h = ((h ^ ((_rotl(lane[k], 7 + 5 * k) * P1) & M64)) * P2) & M64
    for b in data[full:]:
        h = (((h ^ b) * P1) & M64) ^ (h >> 29)
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def seal(body: bytes, abi_version: int = 1) -> bytes:
    return body + struct.pack("<QQII8s", len(body), hash64(body), abi_version, SEAL_SIZE, MAGIC)


def reseal(module: bytes) -> bytes:
    """`module` (sealed, then edited) with a seal that matches its body again."""
    return seal(module[:-SEAL_SIZE])


def symbol_offset(path: Path, name: str) -> int:
    """File offset of dynamic symbol `name` in the module at `path`."""
    nm = shutil.which("llvm-nm") or "/usr/lib/llvm-22/bin/llvm-nm"
    out = subprocess.run([nm, "-D", str(path)], capture_output=True, text=True, check=True).stdout
    addr = next(int(line.split()[0], 16) for line in out.splitlines()
                if line.split()[-1] == name)
    data = path.read_bytes()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= addr < p_vaddr + p_filesz:  # PT_LOAD
            return addr - p_vaddr + p_offset
    raise ValueError(f"{name} is not in a loaded segment of {path}")
