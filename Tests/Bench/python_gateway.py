#!/usr/bin/env python3
"""A plain Python UWB gateway: the baseline `make bench` runs beside uwb2mqtt.

What a straightforward integrator would write with pyserial + paho-mqtt: read the serial port,
reassemble UCI packets (4-byte header, PBF segmentation), decode SESSION_INFO_NTF (GID 2, OID 0)
TWR measurements with struct, and publish the range payload of spec/mqtt-api.md for every
measurement at QoS 0 to <base>/<gw>/peer/<peer>/range, rendered with json.dumps (the same keys,
order and separators as uwb2mqtt). No device bring-up (the bench's device writer streams
notifications without it), no distance filter, no rules: it does strictly less than the agent.

    python_gateway.py --port /dev/pts/N --broker-port 1883 [--base bench] [--gw python]
                      [--peer 0x0001=phone-anna ...]

Prints "ready" on stdout once the port is open and the broker connected.
"""
import argparse
import json
import struct
import sys
import time

import paho.mqtt.client as mqtt
import serial

HEADER = struct.Struct("<IIBIBxBI4xB")        # SESSION_INFO_NTF: 25 bytes up to N
TWR = struct.Struct("<HBBHhBhBhBhBBB11x")       # one short-address TWR measurement: 31 bytes
STATUS_NAMES = {0x1B: "OK_NEGATIVE_DISTANCE_REPORT", 0x20: "RANGING_TX_FAILED", 0x21: "RANGING_RX_TIMEOUT",
                0x22: "RANGING_RX_PHY_DEC_FAILED", 0x23: "RANGING_RX_PHY_TOA_FAILED",
                0x24: "RANGING_RX_PHY_STS_FAILED", 0x25: "RANGING_RX_MAC_DEC_FAILED",
                0x26: "RANGING_RX_MAC_IE_DEC_FAILED", 0x27: "RANGING_RX_MAC_IE_MISSING"}


def rfc3339(t):
    ms = int(t * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def sanitize(name):
    return "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in name.lower())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", required=True)
    ap.add_argument("--broker-port", type=int, required=True)
    ap.add_argument("--base", default="bench")
    ap.add_argument("--gw", default="python")
    ap.add_argument("--session", type=int, default=42)
    ap.add_argument("--peer", action="append", default=[])
    args = ap.parse_args()
    names = {}
    for item in args.peer:
        address, name = item.split("=", 1)
        names[int(address, 0)] = name

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="python-gateway")
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", args.broker_port, keepalive=30)
    client.loop_start()
    for _ in range(500):
        if client.is_connected():
            break
        time.sleep(0.01)
    port = serial.Serial(args.port, 115200, timeout=0.05)
    prefix = "%s/%s/peer/" % (args.base, args.gw)
    print("ready", flush=True)

    buf = bytearray()
    segments = bytearray()
    while True:
        chunk = port.read(port.in_waiting or 1)
        if not chunk:
            continue
        buf += chunk
        while len(buf) >= 4:
            length = buf[3]
            if len(buf) < 4 + length:
                break
            b0, b1 = buf[0], buf[1]
            segments += buf[4:4 + length]
            del buf[:4 + length]
            if b0 & 0x10:                      # PBF: more segments follow
                continue
            message, segments = bytes(segments), bytearray()
            if b0 >> 5 != 3 or b0 & 0x0F != 2 or b1 & 0x3F != 0:   # notification, GID 2, OID 0
                continue
            received = time.time()
            seq, _handle, _rcr, _interval, mtype, mode, _hus, count = HEADER.unpack_from(message, 0)
            if mtype != 1 or mode != 0:        # TWR with short addresses only
                continue
            ts = rfc3339(received)
            offset = HEADER.size
            for _ in range(count):
                mac, status, nlos, dist, _az, _azfom, _el, _elfom, _daz, _dazfom, _del, _delfom, _slot, rssi = \
                    TWR.unpack_from(message, offset)
                offset += TWR.size
                ok = status in (0x00, 0x1B) and dist != 0xFFFF
                raw = ((-dist if status == 0x1B else dist) / 100) if ok else None
                peer = names.get(mac, "0x%04X" % mac)
                payload = {
                    "ts": ts, "peer": peer, "mac": "0x%04X" % mac, "session": args.session, "seq": seq,
                    "status": "ok" if status in (0x00, 0x1B) else STATUS_NAMES.get(status, "0x%02X" % status),
                    "distance_m": raw, "raw_distance_m": raw,
                    "nlos": {0: False, 1: True}.get(nlos),
                    "azimuth_deg": None, "elevation_deg": None, "azimuth_fom": None, "elevation_fom": None,
                    "rssi_dbm": -rssi / 2 if rssi else None,
                }
                client.publish(prefix + sanitize(peer) + "/range", json.dumps(payload), qos=0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
