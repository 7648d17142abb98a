#!/usr/bin/env python3
"""Writes the libFuzzer seed corpus (seeds/) from the test vectors of uci.md §7.

Hex is copied from the spec table; each file is one direction of one vector as it appears on the
wire (TX = host to device, RX = device to host), plus single messages. V23 is only given by its
first bytes and lengths, so its fragments are completed with a deterministic filler (marked
"synth"). Run from anywhere: python3 Tests/Fuzz/make-seeds.py
"""
import os
import re

V = {
    "v01-tx": "20 00 00 01 00",
    "v01-rx": "60 01 00 01 01 40 00 00 01 00 60 01 00 01 01",
    "v02-tx": "20 02 00 00",
    # As published: one byte more than the header's length 0x3e (see uci.md §7 V2 caution).
    "v02-rx": "40 02 00 3e 00 02 00 02 00 02 00 01 10 34 01 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 50 56 34 58 32 30 0e e0 ca 09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02 03 ca de 00",
    "v03-tx": "20 03 00 00",
    "v03-rx": "40 03 00 5e 00 1a 00 02 03 01 01 02 ff 00 02 04 02 00 02 00 03 04 02 00 02 00 04 01 03 05 02 03 00 06 02 1e 00 07 01 19 08 01 03 09 01 02 0a 01 02 0b 01 01 0c 01 01 0d 01 01 0e 01 09 0f 01 0a 10 01 01 11 01 3f 12 05 00 00 00 00 00 13 01 00 14 01 00 15 01 00 16 01 02 17 01 00 18 01 00 19 01 00",
    "v04-tx": "21 00 00 05 07 00 00 00 00",
    "v04-rx": "41 00 00 05 00 01 00 00 00 61 02 00 06 01 00 00 00 00 00",
    "v05-tx": "210000052a00000000",
    "v06-tx": "21 03 00 47 01 00 00 00 12 00 01 01 11 01 01 03 01 00 01 01 02 06 02 00 00 07 02 01 00 04 01 09 02 01 00 12 01 03 22 01 01 14 01 0a 15 01 02 08 02 60 09 09 04 c8 00 00 00 1b 01 19 27 02 08 07 28 06 01 02 03 04 05 06 35 01 01",
    "v06-rx": "41 03 00 02 00 00 61 02 00 06 01 00 00 00 03 00",
    "v07-tx": "2103006a010000001b000101110101030100010102060200000401092201010201001201032e010b2702080728060102030405060d01012b08000000000000000014010a150102080260090904c80000001b0119320200002c01001301002d010005010107020100240100350101",
    "v08-tx": "21 06 00 04 01 00 00 00 21 05 00 00",
    "v08-rx": "41 06 00 02 00 00 41 05 00 02 00 01 41 05 00 02 00 00",
    "v09-tx": "22 00 00 04 01 00 00 00",
    "v09-rx": "42 00 00 01 15",
    "v10-rx": "42 00 00 01 00 60 01 00 01 02 61 02 00 06 01 00 00 00 02 00"
              " 62 00 00 38 00 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00"
              " 62 00 00 38 01 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00",
    "v11-rx": "62 00 00 38 00 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00",
    "v12-tx": "22 03 00 04 01 00 00 00 21 01 00 04 01 00 00 00",
    "v12-rx": "42 03 00 05 00 00 00 00 00 41 01 00 01 00 61 02 00 06 01 00 00 00 01 00",
    "v13-tx": "22 01 00 04 01 00 00 00",
    "v13-rx": "42 01 00 01 00 61 02 00 06 01 00 00 00 03 00 60 01 00 01 01",
    "v14-rx": "62000038090000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000",
    "v15-rx": "620000380a0000002a00000000c800000001000000000000000000000101000000040000000000000000000000000000000000000000000000000000",
    "v16-rx": "620000380b0000002a00000000c800000001000000000000000000000101000000070000000000000000000000000000000000000000000000000000",
    "v17-rx": "620000380c0000002a00000000c8000000010000000000000000000001010000000c0000000000000000000000000000000000000000000000000000",
    "v18-rx": "6b0300212a0000000800000006030100000001000001000000020100000401000005000000",
    "v19-a": "20.02.00.00",
    "v19-b": "410300020000",
    "v19-c": "41.00.00.01.00",
    "v19-d": "61.02.00.06.2a.00.00.00.00.00",
    "v20-a": "0x60, 0x07, 0x00, 0x01, 0x01",
    "v20-b": "0x60, 0x01, 0x00, 0x01, 0x01",
    "v20-c": "0x61, 0x02, 0x00, 0x06, 0x01, 0x02, 0x03, 0x04, 0x02, 0x21",
    "v20-d": "0x41, 0x00, 0x00, 0x01, 0x11",
    "v20-e": "0x40, 0x02, 0x00, 0x0b, 0x01, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x01, 0x0a",
    "v21-rx": "0x62, 0x00, 0x00, 0x19, 0x00, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x0a, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00",
    "v22-rx": "0x62, 0x00, 0x00, 0x19, 0x00, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x0a, 0x01, 0x01, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00",
}


def parse(text):
    out = bytearray()
    for token in re.split(r"[\s,.:]+", text.strip()):
        if not token:
            continue
        if token.lower().startswith("0x"):
            out.append(int(token[2:], 16))
        else:
            out += bytes.fromhex(token)
    return bytes(out)


def filler(n, seed):
    # Deterministic, non-constant bytes to complete V23's published prefixes.
    x, out = seed, bytearray()
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((x >> 16) & 0xFF)
    return bytes(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    seeds = os.path.join(here, "seeds")
    os.makedirs(seeds, exist_ok=True)
    for name, text in V.items():
        with open(os.path.join(seeds, name + ".bin"), "wb") as f:
            f.write(parse(text))
    # V23: NTF GID 9 OID 1, PBF=1 len 255 (259 bytes) then PBF=0 len 145 (149 bytes).
    frag1 = bytes([0x79, 0x01, 0x00, 0xFF, 0x81, 0x93]) + filler(253, 1)
    frag2 = bytes([0x69, 0x01, 0x00, 0x91, 0xE7, 0x26]) + filler(143, 2)
    assert len(frag1) == 259 and len(frag2) == 149
    with open(os.path.join(seeds, "v23-synth-ntf.bin"), "wb") as f:
        f.write(frag1 + frag2)
    # The RSP variant (0x59…/0x49…).
    with open(os.path.join(seeds, "v23-synth-rsp.bin"), "wb") as f:
        f.write(bytes([0x59]) + frag1[1:] + bytes([0x49]) + frag2[1:])
    print(f"wrote {len(V) + 2} seeds to {seeds}")


if __name__ == "__main__":
    main()
