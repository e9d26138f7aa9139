#!/usr/bin/env python3
"""fuzz/mkseeds.py - writes the hand-made seeds of the structured harness.

Owns: fuzz/seeds/struct/*.  The structured harness reads every byte as a
choice (fuzz/fuzz_struct.c), so any bytes are a valid stream; these seeds
only give the fuzzer a spread of starting points: the all-defaults stream,
each profile, and byte strings from a fixed xorshift64 generator (seeded,
so the files are the same on every run).
usage: python3 fuzz/mkseeds.py [OUTDIR]
"""
import os
import sys


def xorshift64(state):
    """Yields bytes from Marsaglia's xorshift64 generator."""
    while True:
        state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
        state ^= state >> 7
        state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
        yield state & 0xFF


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "fuzz/seeds/struct"
    os.makedirs(out, exist_ok=True)
    seeds = {
        # profile byte, then "default" for every parameter (the last choice
        # is not reachable with 0, so zero bytes pick the first values)
        "zeros-64": bytes(64),
        "ff-256": bytes([0xFF]) * 256,
        "postfix-ones": bytes([1]) * 300,
    }
    for i, size in enumerate([48, 96, 160, 256, 400, 640, 1024, 2048]):
        gen = xorshift64(0x9E3779B97F4A7C15 + 7919 * i)
        seeds["prng-%02d-%d" % (i, size)] = bytes(next(gen)
                                                 for _ in range(size))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
