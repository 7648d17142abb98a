#!/usr/bin/env python3
"""Independent emulator of a Qorvo DWM3001C (QM33 SDK UCI firmware, FiRa UCI 2.0) on a pseudo-terminal.

Written from /work/shared/spec/{uci,android-interop,apple-interop,mqtt-api,cli-and-config}.md and the
project's README/docs only.  Python 3 standard library, one process, a poll loop, no threads.

    dwm3001c_emulator.py --link PATH --scenario FILE.json

Scenario (every key optional):
    {"tags":    [{"short_address": 2, "distance_m": 3.0}],
     "android": [{"phone_address": "AB:CD", "distance_m": 2.0, "config_id": 1, "session_id": 1234567,
                  "session_key_info": "00112233445566aa", "channel": 9, "preamble_index": 11,
                  "phone_role": "controlee", "update_rate": "automatic", "slot_duration_ms": 2}],
     "iphones": [{"name": "iphone", "distance_m": 0.5, "seed": 11}],
     "max_sessions": 4}
  tags: short_address is the integer value (config notation 0x0002 = wire 02 00), or "0x0002", or "02:00"
        (wire order); optional "session_id", "session_key_info", "channel" pin what the tag is flashed with.
  android: phone_role (the phone's Jetpack scope, default controlee), update_rate (default automatic, as
        Jetpack's RangingParameters), slot_duration_ms (default 2) complete what the phone's app chose.
  distance_m may be null (peer out of range) or negative (reported as OK_NEGATIVE_DISTANCE_REPORT).

stdin, one JSON object a line: {"op": "iphone_run", "name", "accessory_configuration_data": base64},
{"op": "iphone_stop", "name"}, {"op": "unplug"}, and {"op": "move", "peer": label, "distance_m": x}
(label = "0x0002" for a tag, the phone_address for a phone, the name for an iPhone).
stdout, one JSON object a line: ready, command, ranging (at most once per peer per second and session),
malformed, mismatch (once per session and peer: what differs from what the peer puts on the air),
not_configured, shareable_configuration_data, refused, host_opened, host_closed, unplugged, plugged, exit.
"""

import argparse
import base64
import errno
import json
import math
import os
import random
import select
import signal
import sys
import termios
import time
import tty

# ----------------------------------------------------------------------------------------------
# Output

def emit(obj):
    try:
        sys.stdout.write(json.dumps(obj, separators=(", ", ": ")) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass


def hx(b):
    return bytes(b).hex()


def colon(addr):
    """Wire-order notation of Jetpack's UwbAddress.toString(): "AB:CD"."""
    return ":".join("%02X" % x for x in addr)


def mac_notation(addr):
    """Qorvo's / the config's notation: the little-endian value, "0x0001" for wire 01 00."""
    return "0x%0*X" % (len(addr) * 2, int.from_bytes(addr, "little"))


def le(b):
    return int.from_bytes(b, "little")


def u(n, v):
    return int(v).to_bytes(n, "little")


# ----------------------------------------------------------------------------------------------
# UCI constants (uci.md §1-§4)

MT_DATA, MT_CMD, MT_RSP, MT_NTF = 0, 1, 2, 3
GID_CORE, GID_SESSION_CONFIG, GID_SESSION_CONTROL = 0x0, 0x1, 0x2
GID_QORVO_EXT2, GID_QORVO_CALIB = 0xB, 0xF

OK, REJECTED, FAILED, SYNTAX_ERROR, INVALID_PARAM, INVALID_RANGE, INVALID_MESSAGE_SIZE = 0, 1, 2, 3, 4, 5, 6
UNKNOWN_GID, UNKNOWN_OID, READ_ONLY = 7, 8, 9
SESSION_NOT_EXIST, SESSION_DUPLICATE, SESSION_ACTIVE, MAX_SESSIONS_EXCEEDED = 0x11, 0x12, 0x13, 0x14
SESSION_NOT_CONFIGURED = 0x15
OK_NEGATIVE_DISTANCE = 0x1B
RX_TIMEOUT, RX_PHY_STS_FAILED = 0x21, 0x24

STATUS_NAMES = {
    0x00: "OK", 0x01: "REJECTED", 0x02: "FAILED", 0x03: "SYNTAX_ERROR", 0x04: "INVALID_PARAM",
    0x05: "INVALID_RANGE", 0x06: "INVALID_MESSAGE_SIZE", 0x07: "UNKNOWN_GID", 0x08: "UNKNOWN_OID",
    0x09: "READ_ONLY", 0x0A: "COMMAND_RETRY", 0x0B: "UNKNOWN", 0x0C: "NOT_APPLICABLE",
    0x11: "ERROR_SESSION_NOT_EXIST", 0x12: "ERROR_SESSION_DUPLICATE", 0x13: "ERROR_SESSION_ACTIVE",
    0x14: "ERROR_MAX_SESSIONS_EXCEEDED", 0x15: "ERROR_SESSION_NOT_CONFIGURED",
    0x16: "ERROR_ACTIVE_SESSIONS_ONGOING", 0x17: "ERROR_MULTICAST_LIST_FULL",
    0x18: "ERROR_ADDRESS_NOT_FOUND", 0x19: "ERROR_ADDRESS_ALREADY_PRESENT",
    0x1B: "OK_NEGATIVE_DISTANCE_REPORT", 0x20: "RANGING_TX_FAILED", 0x21: "RANGING_RX_TIMEOUT",
    0x22: "RANGING_RX_PHY_DEC_FAILED", 0x23: "RANGING_RX_PHY_TOA_FAILED",
    0x24: "RANGING_RX_PHY_STS_FAILED", 0x25: "RANGING_RX_MAC_DEC_FAILED",
    0x26: "RANGING_RX_MAC_IE_DEC_FAILED", 0x27: "RANGING_RX_MAC_IE_MISSING",
}


def sname(code):
    return STATUS_NAMES.get(code, "0x%02X" % code)


DEVICE_READY, DEVICE_ACTIVE = 0x01, 0x02
S_INIT, S_DEINIT, S_ACTIVE, S_IDLE = 0x00, 0x01, 0x02, 0x03
STATE_NAMES = {0: "INIT", 1: "DEINIT", 2: "ACTIVE", 3: "IDLE"}

R_MGMT = 0x00                   # STATE_CHANGE_WITH_SESSION_MANAGEMENT_COMMANDS
R_MAX_RR_RETRY = 0x01           # MAX_RANGING_ROUND_RETRY_COUNT_REACHED
R_MAX_MEASUREMENTS = 0x02       # MAX_NUMBER_OF_MEASUREMENTS_REACHED
R_INVALID_RANGING_DURATION = 0x23
R_SESSION_KEY_NOT_FOUND = 0x2A
R_SUB_SESSION_KEY_NOT_FOUND = 0x2B
R_INVALID_NUM_OF_CONTROLEES = 0x33
R_INVALID_DST_ADDRESS_LIST = 0x35

# multicast-list per-controlee status (uci.md §3.5)
MC_OK, MC_LIST_FULL, MC_SUB_KEY_NOT_APPLICABLE, MC_ADDRESS_NOT_FOUND, MC_ADDRESS_PRESENT = 0, 1, 5, 7, 8

MAX_MESSAGE_SIZE = 0x0103       # CORE_GET_CAPS_INFO tag 0x00 of the real device (uci.md §7 V3)
MAX_CONTROLEES = 8              # FIRA_RESPONDERS_MAX 8 (uci.md §4.1)
GARBAGE_TIMEOUT = 0.100         # UCI_GARBAGE_TIMEOUT_MS (uci.md §1.4)

# CORE_GET_DEVICE_INFO: UCI 2.0.0, MAC 2.0.0, PHY 2.0.0, test 1.1.0, 52 bytes of Qorvo vendor info
# (uci.md §6.3: fw 1.1.0-rc0, build id(8), product fw(3), chip id(32), device id 0xDECA0302, package 0).
VENDOR_INFO = (bytes([1, 1, 0, 0]) + bytes(8) + bytes([1, 1, 0]) + b"QM33110 DWM3001C emulator".ljust(32, b"\0")
               + bytes([0x02, 0x03, 0xCA, 0xDE]) + bytes([0]))
assert len(VENDOR_INFO) == 52
DEVICE_INFO_RSP = bytes([OK, 0x02, 0x00, 0x02, 0x00, 0x02, 0x00, 0x01, 0x10, len(VENDOR_INFO)]) + VENDOR_INFO

# CORE_GET_CAPS_INFO of a real DWM3001CDK (uci.md §7 V3), verbatim: AoA 0x00, extended MAC 0x00.
CAPS_RSP = bytes.fromhex(
    "001a000203010102ff000204020002000304020002000401030502030006021e0007011908010309010"
    "20a01020b01010c01010d01010e01090f010a10010111013f12050000000000130100140100150100"
    "160102170100180100190100")

# Device configuration (CORE_SET/GET_CONFIG, uci.md §4.2): id -> (length, validator, default)
DEVICE_CONFIG = {
    0x00: (1, None, bytes([DEVICE_READY])),          # DEVICE_STATE, read-only
    0x01: (1, lambda v: v in (0, 1), bytes([1])),    # LOW_POWER_MODE, QM33 default 1
    0xA0: (1, lambda v: v in (5, 9), bytes([9])),    # Qorvo ChannelNumber
    0xA8: (4, lambda v: True, bytes(4)),             # Qorvo Traces
    0xA9: (4, lambda v: True, u(4, 0)),              # Qorvo PmMinInactivityS4
}


def _one_of(*vals):
    return lambda v: v in vals


def _range(lo, hi):
    return lambda v: lo <= v <= hi


_ANY = lambda v: True  # noqa: E731

# App configuration (uci.md §4.1), what the QM33 accepts: id -> (name, lengths, value check, default)
# Ids marked there "not supported" / "RFU in [QAPI]" / "PCTT only" are absent, and refused.
APP = {
    0x00: ("DEVICE_TYPE", (1,), _one_of(0, 1), None),
    0x01: ("RANGING_ROUND_USAGE", (1,), _range(1, 4), u(1, 2)),
    0x02: ("STS_CONFIG", (1,), _one_of(0, 3, 4), u(1, 0)),
    0x03: ("MULTI_NODE_MODE", (1,), _one_of(0, 1), u(1, 0)),
    0x04: ("CHANNEL_NUMBER", (1,), _one_of(5, 9), u(1, 9)),
    0x05: ("NUMBER_OF_CONTROLEES", (1,), _range(1, MAX_CONTROLEES), u(1, 1)),
    0x06: ("DEVICE_MAC_ADDRESS", (2,), _ANY, None),
    0x07: ("DST_MAC_ADDRESS", tuple(range(2, 2 * MAX_CONTROLEES + 1, 2)), None, None),
    0x08: ("SLOT_DURATION", (2,), _range(1, 0xFFFF), u(2, 2400)),
    0x09: ("RANGING_DURATION", (4,), _range(1, 0xFFFFFFFF), u(4, 200)),
    0x0B: ("MAC_FCS_TYPE", (1,), _one_of(0), u(1, 0)),
    0x0C: ("RANGING_ROUND_CONTROL", (1,), _ANY, u(1, 0x03)),
    0x0D: ("AOA_RESULT_REQ", (1,), _one_of(0, 1), u(1, 1)),
    0x0E: ("SESSION_INFO_NTF_CONFIG", (1,), _range(0, 7), u(1, 1)),
    0x11: ("DEVICE_ROLE", (1,), _one_of(0, 1), None),
    0x12: ("RFRAME_CONFIG", (1,), _one_of(1, 3), u(1, 3)),
    0x13: ("RSSI_REPORTING", (1,), _one_of(0, 1), u(1, 0)),
    0x14: ("PREAMBLE_CODE_INDEX", (1,), _range(9, 12), u(1, 10)),
    0x15: ("SFD_ID", (1,), _one_of(0, 2), u(1, 2)),
    0x16: ("PSDU_DATA_RATE", (1,), _one_of(0), u(1, 0)),
    0x17: ("PREAMBLE_DURATION", (1,), _one_of(1), u(1, 1)),
    0x18: ("LINK_LAYER_MODE", (1,), _one_of(0), u(1, 0)),
    0x1A: ("RANGING_TIME_STRUCT", (1,), _one_of(1), u(1, 1)),
    0x1B: ("SLOTS_PER_RR", (1,), _range(1, 255), u(1, 25)),
    0x1F: ("PRF_MODE", (1,), _one_of(0), u(1, 0)),
    0x22: ("SCHEDULE_MODE", (1,), _one_of(1), u(1, 1)),
    0x23: ("KEY_ROTATION", (1,), _one_of(0, 1), u(1, 0)),
    0x24: ("KEY_ROTATION_RATE", (1,), _ANY, u(1, 0)),
    0x25: ("SESSION_PRIORITY", (1,), _range(1, 100), u(1, 50)),
    0x26: ("MAC_ADDRESS_MODE", (1,), _one_of(0), u(1, 0)),
    0x27: ("VENDOR_ID", (2,), _ANY, bytes([0x08, 0x07])),
    0x28: ("STATIC_STS_IV", (6,), _ANY, bytes([1, 2, 3, 4, 5, 6])),
    0x29: ("NUMBER_OF_STS_SEGMENTS", (1,), _one_of(0, 1), u(1, 1)),
    0x2A: ("MAX_RR_RETRY", (2,), _ANY, u(2, 0)),
    0x2B: ("UWB_INITIATION_TIME", (8,), _ANY, u(8, 0)),   # FiRa 2.0 form: 8 bytes
    0x2C: ("HOPPING_MODE", (1,), _one_of(0, 1), u(1, 0)),
    0x2D: ("BLOCK_STRIDE_LENGTH", (1,), _ANY, u(1, 0)),
    0x2E: ("RESULT_REPORT_CONFIG", (1,), _range(0, 0x0F), u(1, 0x0B)),
    0x2F: ("IN_BAND_TERMINATION_ATTEMPT_COUNT", (1,), _ANY, u(1, 1)),
    0x30: ("SUB_SESSION_ID", (4,), _ANY, u(4, 0)),
    0x31: ("BPRF_PHR_DATA_RATE", (1,), _one_of(0, 1), u(1, 0)),
    0x32: ("MAX_NUMBER_OF_MEASUREMENTS", (2,), _ANY, u(2, 0)),
    0x35: ("STS_LENGTH", (1,), _one_of(0, 1, 2), u(1, 1)),
    0x45: ("SESSION_KEY", (16, 32), _ANY, None),
    0x46: ("SUB_SESSION_KEY", (16, 32), _ANY, None),
    0xE3: ("NB_OF_RANGE_MEASUREMENTS", (1,), _ANY, u(1, 0)),
    0xE4: ("NB_OF_AZIMUTH_MEASUREMENTS", (1,), _ANY, u(1, 0)),
    0xE5: ("NB_OF_ELEVATION_MEASUREMENTS", (1,), _ANY, u(1, 0)),
    0xE6: ("RX_ANTENNA_SELECTION", (1,), _ANY, u(1, 0)),
    0xE7: ("TX_ANTENNA_SELECTION", (1,), _ANY, u(1, 0)),
    0xE8: ("ENABLE_DIAGNOSTICS", (1,), _one_of(0, 1), u(1, 0)),
    0xE9: ("DIAGS_FRAME_REPORTS_FIELDS", (1,), _ANY, u(1, 0)),
    0xEA: ("MAC_PAYLOAD_ENCRYPTION", (1,), _one_of(0, 1), u(1, 0)),   # Qorvo's meaning of 0xEA
}
APP_NAME_ALL = dict((k, v[0]) for k, v in APP.items())
APP_NAME_ALL.update({0x0A: "STS_INDEX", 0x0F: "NEAR_PROXIMITY_CONFIG", 0x10: "FAR_PROXIMITY_CONFIG",
                     0x19: "DATA_REPETITION_COUNT", 0x1C: "TX_ADAPTIVE_PAYLOAD_POWER", 0x1D: "AOA_BOUND_CONFIG",
                     0x1E: "RESPONDER_SLOT_INDEX", 0x20: "CAP_SIZE_RANGE", 0x21: "TX_JITTER_WINDOW_SIZE"})


def app_name(tag):
    return APP_NAME_ALL.get(tag, "0x%02X" % tag)


# A session is "configured" (INIT -> IDLE) once these are set (uci.md §6.4 Q4: the five uqt mandatory
# TLVs + DST_MAC + channel were not enough; adding STS_CONFIG, RFRAME_CONFIG, SCHEDULE_MODE,
# PREAMBLE_CODE_INDEX, SFD_ID, SLOT_DURATION, RANGING_DURATION, SLOTS_PER_RR lifted the gate).
REQUIRED = (0x00, 0x11, 0x03, 0x01, 0x06, 0x07, 0x04,
            0x02, 0x12, 0x22, 0x14, 0x15, 0x08, 0x09, 0x1B)
CHANGEABLE_WHILE_ACTIVE = (0x0E, 0x2D)

CMD_NAMES = {
    (0, 0x00): "CORE_DEVICE_RESET", (0, 0x02): "CORE_GET_DEVICE_INFO", (0, 0x03): "CORE_GET_CAPS_INFO",
    (0, 0x04): "CORE_SET_CONFIG", (0, 0x05): "CORE_GET_CONFIG",
    (1, 0x00): "SESSION_INIT", (1, 0x01): "SESSION_DEINIT", (1, 0x03): "SESSION_SET_APP_CONFIG",
    (1, 0x04): "SESSION_GET_APP_CONFIG", (1, 0x05): "SESSION_GET_COUNT", (1, 0x06): "SESSION_GET_STATE",
    (1, 0x07): "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST",
    (2, 0x00): "SESSION_START", (2, 0x01): "SESSION_STOP", (2, 0x03): "SESSION_GET_RANGING_COUNT",
    (0xB, 0x01): "QORVO_TEST_TX_CW", (0xF, 0x00): "QORVO_CALIB_RESET",
}


def parse_tlvs(data, count):
    """n x [id(1) len(1) value]; None when the bytes do not hold exactly `count` TLVs."""
    out, i = [], 0
    for _ in range(count):
        if i + 2 > len(data):
            return None
        tag, ln = data[i], data[i + 1]
        if i + 2 + ln > len(data):
            return None
        out.append((tag, bytes(data[i + 2:i + 2 + ln])))
        i += 2 + ln
    return out if i == len(data) else None


def split_addrs(b):
    return [bytes(b[i:i + 2]) for i in range(0, len(b) - 1, 2)]


# ----------------------------------------------------------------------------------------------
# Sessions

class Session:
    def __init__(self, session_id, session_type, handle):
        self.session_id = session_id
        self.session_type = session_type
        self.handle = handle
        self.state = S_INIT
        self.params = {}
        self.seq = 0
        self.rounds = 0
        self.next_round = None
        self.started_at = None
        self.failed_rounds = 0
        self.measurements = 0

    def get(self, tag):
        if tag in self.params:
            return self.params[tag]
        return APP[tag][3] if tag in APP else None

    def geti(self, tag):
        v = self.get(tag)
        return None if v is None else le(v)

    def is_controller(self):
        return self.geti(0x00) == 1

    def dst(self):
        return split_addrs(self.get(0x07) or b"")

    def targets(self):
        d = self.dst()
        return d if self.is_controller() else d[:1]

    def interval_s(self):
        return max(1, self.geti(0x09)) / 1000.0

    def missing(self):
        return [app_name(t) for t in REQUIRED if t not in self.params]


# ----------------------------------------------------------------------------------------------
# Peers on the air

def parse_address(v, what):
    if isinstance(v, bool):
        raise ValueError("%s: not an address: %r" % (what, v))
    if isinstance(v, int):
        if not 0 <= v <= 0xFFFF:
            raise ValueError("%s: %d is not a short address" % (what, v))
        return u(2, v)
    if isinstance(v, str):
        s = v.strip()
        if ":" in s:
            parts = s.split(":")
            if len(parts) != 2 or not all(len(p) == 2 for p in parts):
                raise ValueError("%s: %r is not two bytes AB:CD" % (what, v))
            return bytes(int(p, 16) for p in parts)
        return u(2, int(s, 0))
    raise ValueError("%s: not an address: %r" % (what, v))


def hex_bytes(s, what):
    t = "".join(ch for ch in str(s) if ch not in " :")
    try:
        return bytes.fromhex(t)
    except ValueError:
        raise ValueError("%s: %r is not hex" % (what, s))


def compare(session, expected, diffs):
    """expected: list of (tag, wanted int or bytes); appends 'NAME x, wanted y' for each difference."""
    for tag, want in expected:
        got = session.get(tag)
        if isinstance(want, bytes):
            if got != want:
                diffs.append("%s %s, wanted %s" % (app_name(tag), hx(got) if got is not None else "unset", hx(want)))
        else:
            gv = None if got is None else le(got)
            if gv != want:
                diffs.append("%s %s, wanted %s" % (app_name(tag), gv if gv is not None else "unset", want))


def check_addresses(session, peer_addr, diffs, want_controller, exact_controlees):
    """The gateway's role and peer lists, seen from a peer at peer_addr."""
    dst = session.dst()
    if want_controller:
        if peer_addr not in dst:
            diffs.append("DST_MAC_ADDRESS %s does not list %s" % (hx(session.get(0x07) or b""), colon(peer_addr)))
        elif exact_controlees and len(dst) != 1:
            diffs.append("DST_MAC_ADDRESS lists %d controlees, a unicast peer wants exactly one" % len(dst))
    else:
        if not dst or dst[0] != peer_addr:
            diffs.append("DST_MAC_ADDRESS %s, wanted the controller %s" % (hx(session.get(0x07) or b""), colon(peer_addr)))
    if session.get(0x06) == peer_addr:
        diffs.append("DEVICE_MAC_ADDRESS %s is the peer's own address" % colon(peer_addr))


class Peer:
    kind = "peer"

    def __init__(self, addr, label, distance_m):
        self.addr = addr
        self.label = label
        self.distance_m = distance_m

    def evaluate(self, session, now):
        """-> (status, diffs)"""
        raise NotImplementedError


class Tag(Peer):
    kind = "tag"

    def __init__(self, spec):
        addr = parse_address(spec.get("short_address"), "tags[].short_address")
        super().__init__(addr, mac_notation(addr), spec.get("distance_m", 1.0))
        self.session_id = spec.get("session_id")
        self.key = hex_bytes(spec["session_key_info"], "tags[].session_key_info") if spec.get("session_key_info") else None
        self.channel = spec.get("channel")

    def evaluate(self, session, now):
        diffs, key_diffs = [], []
        if session.session_type != 0x00:
            diffs.append("session type 0x%02X, wanted 0x00" % session.session_type)
        if session.geti(0x02) != 0:
            diffs.append("STS_CONFIG %d, the tag uses static STS (0)" % session.geti(0x02))
        if self.session_id is not None and session.session_id != self.session_id:
            diffs.append("session id %d, wanted %d" % (session.session_id, self.session_id))
        if self.channel is not None:
            compare(session, [(0x04, self.channel)], diffs)
        if self.key is not None:
            compare(session, [(0x27, self.key[:2]), (0x28, self.key[2:8])], key_diffs)
        return verdict(diffs, key_diffs)


def verdict(diffs, key_diffs):
    if not diffs and not key_diffs:
        return OK, []
    if not diffs:
        return RX_PHY_STS_FAILED, key_diffs      # frames heard, STS does not verify
    return RX_TIMEOUT, diffs + key_diffs


# Jetpack config ids (android-interop.md §2): multi-node, STS config, slots per round, intervals
JETPACK = {
    1: (0, 0, 6, (240, 120, 600)), 2: (1, 0, 20, (200, 120, 600)), 3: (0, 0, 20, (200, 120, 600)),
    4: (0, 3, 6, (240, 120, 600)), 5: (1, 3, 20, (200, 120, 600)), 6: (0, 3, 20, (200, 120, 600)),
    7: (1, 4, 20, (200, 120, 600)),
}
RATES = {"automatic": 0, "frequent": 1, "infrequent": 2}
PHONE_GIVES_UP_AFTER = 10.0     # android-interop.md §9: 10 s without a successful round


class AndroidPhone(Peer):
    kind = "android"

    def __init__(self, spec):
        addr = parse_address(spec.get("phone_address"), "android[].phone_address")
        if not isinstance(spec.get("phone_address"), str) or ":" not in spec["phone_address"]:
            raise ValueError("android[].phone_address must be UwbAddress.toString(), e.g. \"AB:CD\"")
        super().__init__(addr, colon(addr), spec.get("distance_m", 1.0))
        self.config_id = int(spec.get("config_id", 1))
        if self.config_id not in JETPACK:
            raise ValueError("android[].config_id %r is not a Jetpack config id 1..7" % spec.get("config_id"))
        self.session_id = int(spec["session_id"])
        self.key = hex_bytes(spec["session_key_info"], "android[].session_key_info")
        static = JETPACK[self.config_id][1] == 0
        if len(self.key) != (8 if static else 16):
            raise ValueError("android[].session_key_info must be %d bytes for config %d" % (8 if static else 16, self.config_id))
        self.channel = int(spec.get("channel", 9))
        self.preamble = int(spec.get("preamble_index", 10))
        self.role = spec.get("phone_role", "controlee")
        if self.role not in ("controlee", "controller"):
            raise ValueError("android[].phone_role must be controlee or controller")
        rate = spec.get("update_rate", "automatic")
        if rate not in RATES:
            raise ValueError("android[].update_rate must be automatic, frequent or infrequent")
        self.interval = JETPACK[self.config_id][3][RATES[rate]]
        self.slot_ms = int(spec.get("slot_duration_ms", 2))
        self.clock = {}            # session handle -> time of last success (or of the start)
        self.gave_up = set()

    def expected(self):
        multi, sts, slots, _ = JETPACK[self.config_id]
        gw_controller = 1 if self.role == "controlee" else 0
        e = [(0x00, gw_controller), (0x11, gw_controller),      # controller = initiator, always
             (0x01, 2), (0x02, sts), (0x03, multi), (0x04, self.channel), (0x14, self.preamble),
             (0x15, 2), (0x08, self.slot_ms * 1200), (0x1B, slots), (0x09, self.interval),
             (0x2C, 1), (0x12, 3), (0x22, 1), (0x1A, 1), (0x35, 1), (0x29, 1), (0x17, 1), (0x16, 0),
             (0x31, 0), (0x1F, 0), (0x0B, 0), (0x0C, 0x03), (0x26, 0), (0x2D, 0),
             (0x23, 1 if sts == 3 else 0)]
        if sts == 3:
            e.append((0x24, 0))
        return e

    def evaluate(self, session, now):
        if session.handle in self.gave_up:
            return RX_TIMEOUT, ["the phone ended its session after %d s without a good round" % PHONE_GIVES_UP_AFTER]
        diffs, key_diffs = [], []
        if session.session_type != 0x00:
            diffs.append("session type 0x%02X, wanted 0x00" % session.session_type)
        if session.session_id != self.session_id:
            diffs.append("session id %d, wanted %d" % (session.session_id, self.session_id))
        compare(session, self.expected(), diffs)
        check_addresses(session, self.addr, diffs, self.role == "controlee", JETPACK[self.config_id][0] == 0)
        if JETPACK[self.config_id][1] == 0:
            compare(session, [(0x27, self.key[:2]), (0x28, self.key[2:8])], key_diffs)
        else:
            compare(session, [(0x45, self.key)], key_diffs)
        status, all_diffs = verdict(diffs, key_diffs)
        last = self.clock.setdefault(session.handle, now)
        if status == OK:
            self.clock[session.handle] = now
        elif now - last >= PHONE_GIVES_UP_AFTER:
            self.gave_up.add(session.handle)
            emit({"event": "phone_gave_up", "peer": self.label, "session_id": session.session_id,
                  "session_handle": session.handle})
        return status, all_diffs


class IPhone(Peer):
    kind = "iphone"

    def __init__(self, spec):
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("iphones[].name is required")
        super().__init__(None, name, spec.get("distance_m", 1.0))
        self.rng = random.Random(spec.get("seed", 0))
        self.country = spec.get("country_code", "US")
        self.run = None             # the NISession's configuration while it runs

    def start(self, acd_b64):
        try:
            data = base64.b64decode(acd_b64, validate=True)
        except Exception:
            raise ValueError("accessory_configuration_data is not base64")
        acd = parse_acd(data)
        r = self.rng
        ver = acd["uwb_version"]
        session_id = r.randrange(1, 1 << 32)
        channel = r.choice((5, 9))
        preamble = r.choice((9, 10, 11, 12))
        slots, slot_rstu, interval, hopping = 6, 3600, 198, 0     # what iOS 1.x puts on the air (spec §3)
        if ver == (2, 0):
            slots, slot_rstu, interval, hopping = (acd["req_slots"], acd["req_slot_rstu"],
                                                   acd["req_interval"], acd["req_hopping"])
        rrc = 0x03
        iv = bytes(r.randrange(256) for _ in range(6))
        while True:
            addr = bytes(r.randrange(256) for _ in range(2))
            if addr not in (b"\xff\xff", b"\xfe\xff", acd["address"]):
                break
        blob = build_shareable(ver, self.country.encode("ascii")[:2].ljust(2, b"\0"), session_id, preamble,
                               channel, slots, slot_rstu, interval, rrc, iv, addr, 100, hopping)
        self.addr = addr
        self.run = {"acd": acd, "session_id": session_id, "channel": channel, "preamble": preamble,
                    "slots": slots, "slot_rstu": slot_rstu, "interval": interval, "rrc": rrc, "iv": iv,
                    "hopping": hopping, "version": "%d.%d" % ver}
        return blob

    def stop(self):
        self.run = None

    def evaluate(self, session, now):
        if self.run is None:
            return RX_TIMEOUT, ["the NISession is not running"]
        c = self.run
        acd = c["acd"]
        role = acd["role"]              # 0: accessory responder/controlee, 1: initiator/controller
        diffs, key_diffs = [], []
        if session.session_type != 0x00:
            diffs.append("session type 0x%02X, wanted 0x00" % session.session_type)
        if session.session_id != c["session_id"]:
            diffs.append("session id %d, wanted %d" % (session.session_id, c["session_id"]))
        compare(session, [(0x00, role), (0x11, role), (0x03, 0), (0x01, 2), (0x02, 0),
                          (0x06, acd["address"]), (0x04, c["channel"]), (0x14, c["preamble"]),
                          (0x12, 3), (0x15, 2), (0x22, 1), (0x08, c["slot_rstu"]), (0x09, c["interval"]),
                          (0x1B, c["slots"]), (0x35, 1), (0x2C, c["hopping"]), (0x0C, c["rrc"]),
                          (0x2E, 0x01), (0x05, 1), (0x29, 1), (0x17, 1), (0x26, 0), (0x16, 0), (0x31, 0),
                          (0x1F, 0), (0x1A, 1)], diffs)
        check_addresses(session, self.addr, diffs, role == 1, True)
        compare(session, [(0x27, bytes([0x4C, 0x00])), (0x28, c["iv"])], key_diffs)
        return verdict(diffs, key_diffs)


# ----------------------------------------------------------------------------------------------
# Apple's structures (apple-interop.md §2)

ACD_UWB_LENGTHS = {(1, 0): 19, (1, 1): 21, (2, 0): 32}


def parse_acd(d):
    if len(d) < 16:
        raise ValueError("accessory configuration data is %d bytes; it needs at least the 16-byte header" % len(d))
    major, minor = le(d[0:2]), le(d[2:4])
    if (major, minor) != (1, 0):
        raise ValueError("NI accessory protocol version %d.%d is not supported (1.0)" % (major, minor))
    rate = d[4]
    if rate not in (0, 10, 20):
        raise ValueError("preferred update rate %d is not 0, 10 or 20" % rate)
    n = d[15]
    if len(d) != 16 + n:
        raise ValueError("accessory configuration data is %d bytes, the header announces 16 + %d" % (len(d), n))
    w = d[16:]
    if len(w) < 4:
        raise ValueError("UWB configuration data is %d bytes" % len(w))
    ver = (le(w[0:2]), le(w[2:4]))
    if ver not in ACD_UWB_LENGTHS:
        raise ValueError("UWB configuration version %d.%d is not supported (1.0, 1.1, 2.0)" % ver)
    if n != ACD_UWB_LENGTHS[ver]:
        raise ValueError("UWB configuration data %d.%d is %d bytes; it must be %d" % (ver + (n, ACD_UWB_LENGTHS[ver])))
    role = w[16]
    if role not in (0, 1):
        raise ValueError("ranging role %d is not 0 (responder) or 1 (initiator)" % role)
    addr = bytes(w[17:19])
    if addr in (b"\xff\xff", b"\xfe\xff"):
        raise ValueError("accessory address %s is a broadcast / no-address value" % colon(addr))
    out = {"uwb_version": ver, "rate": rate, "manufacturer_id": le(w[4:8]), "model_id": le(w[8:12]),
           "middleware": le(w[12:16]), "role": role, "address": addr,
           "clock_drift": le(w[19:21]) if ver >= (1, 1) else None}
    if ver == (2, 0):
        hop, slots, slot_rstu, interval = w[25], le(w[26:28]), le(w[28:30]), le(w[30:32])
        if hop not in (0, 1):
            raise ValueError("requested hopping %d is not 0 or 1" % hop)
        if slots < 6:
            raise ValueError("requested slots per round %d is under the minimum 6" % slots)
        if slot_rstu < 2400 or slot_rstu % 1200:
            raise ValueError("requested slot duration %d RSTU is not a multiple of 1200 of at least 2400" % slot_rstu)
        if interval * 1200 < slots * slot_rstu:
            raise ValueError("requested ranging interval %d ms is shorter than the round, %d x %g ms"
                             % (interval, slots, slot_rstu / 1200.0))
        out.update(req_hopping=hop, req_slots=slots, req_slot_rstu=slot_rstu, req_interval=interval)
    return out


def build_shareable(ver, country, session_id, preamble, channel, slots, slot_rstu, interval, rrc, iv, addr,
                    drift, hopping):
    body = (country + u(4, session_id) + bytes([preamble, channel]) + u(2, slots) + u(2, slot_rstu)
            + u(2, interval) + bytes([rrc]) + iv + addr)
    if ver >= (1, 1):
        body += u(2, drift)
    if ver == (2, 0):
        body += bytes(4) + bytes([hopping])
    return u(2, ver[0]) + u(2, ver[1]) + bytes([len(body)]) + body


# ----------------------------------------------------------------------------------------------
# The pseudo-terminal

class Link:
    def __init__(self, path):
        self.path = path
        self.master = None
        self.slave_name = None
        self.present = False
        self.outq = bytearray()
        self.overflow_logged = False

    def open(self):
        m, s = os.openpty()
        tty.setraw(s)
        self.slave_name = os.ttyname(s)
        os.close(s)
        os.set_blocking(m, False)
        self.master = m
        self.present = False
        tmp = "%s.tmp-%d" % (self.path, os.getpid())
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(self.slave_name, tmp)
        os.replace(tmp, self.path)

    def close(self):
        if self.master is not None:
            os.close(self.master)
            self.master = None
        self.present = False
        self.outq.clear()
        try:
            if os.path.islink(self.path) and os.readlink(self.path) == self.slave_name:
                os.unlink(self.path)
        except OSError:
            pass

    def hung_up(self):
        if self.master is None:
            return True
        p = select.poll()
        p.register(self.master, select.POLLIN)
        for _, ev in p.poll(0):
            if ev & (select.POLLHUP | select.POLLERR):
                return True
        return False

    def flush_stale(self):
        """Bytes written while the host had the port open but never read: a USB CDC device's go with the
        port; the pty would keep them for the next opener."""
        try:
            fd = os.open(self.slave_name, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                termios.tcflush(fd, termios.TCIOFLUSH)
            finally:
                os.close(fd)
        except OSError:
            pass

    def send(self, data):
        if not self.present:
            return
        if len(self.outq) > 1 << 18:
            if not self.overflow_logged:
                emit({"event": "malformed", "what": "the host does not read; output dropped"})
                self.overflow_logged = True
            return
        self.outq += data

    def pump_out(self):
        while self.outq and self.present:
            try:
                n = os.write(self.master, self.outq[:4096])
            except BlockingIOError:
                return True
            except OSError as e:
                if e.errno == errno.EIO:
                    return False
                raise
            del self.outq[:n]
        self.overflow_logged = False
        return True


# ----------------------------------------------------------------------------------------------
# The device

class Device:
    def __init__(self, link, peers, max_sessions):
        self.link = link
        self.peers = peers
        self.max_sessions = max_sessions
        self.last_print = {}
        self.mismatch_logged = set()
        self.power_on()

    def power_on(self):
        self.sessions = {}
        self.next_handle = 1
        self.device_config = {}
        self.rx = bytearray()
        self.rx_started = None
        self.seg = None                 # (gid, oid, bytearray) while PBF=1 segments arrive

    # -- output
    def send(self, mt, gid, oid, payload=b""):
        payload = bytes(payload)
        chunks = [payload[i:i + 255] for i in range(0, len(payload), 255)] or [b""]
        out = bytearray()
        for i, c in enumerate(chunks):
            pbf = 1 if i < len(chunks) - 1 else 0
            out += bytes([(mt << 5) | (pbf << 4) | gid, oid & 0x3F, 0, len(c)]) + c
        self.link.send(bytes(out))

    def device_status(self, state):
        self.send(MT_NTF, GID_CORE, 0x01, [state])

    def session_status(self, s, state, reason):
        self.send(MT_NTF, GID_SESSION_CONFIG, 0x02, u(4, s.handle) + bytes([state, reason]))

    def generic_error(self, status):
        self.send(MT_NTF, GID_CORE, 0x07, [status])

    def active_count(self):
        return sum(1 for s in self.sessions.values() if s.state == S_ACTIVE)

    # -- input
    def host_gone(self):
        self.rx.clear()
        self.rx_started = None
        self.seg = None

    def feed(self, data, now):
        if not self.rx:
            self.rx_started = now
        self.rx += data
        while len(self.rx) >= 4:
            total = 4 + self.rx[3]            # the firmware takes data[3] as the length of every packet
            if len(self.rx) < total:
                break
            pkt = bytes(self.rx[:total])
            del self.rx[:total]
            self.rx_started = now if self.rx else None
            try:
                self.packet(pkt, now)
            except Exception as e:            # never let the host's bytes end the device
                emit({"event": "malformed", "what": "internal error on packet: %r" % e, "bytes": hx(pkt)})
                self.generic_error(FAILED)

    def garbage_deadline(self):
        return None if self.rx_started is None or not self.rx else self.rx_started + GARBAGE_TIMEOUT

    def flush_garbage(self):
        emit({"event": "malformed", "what": "incomplete packet flushed after 100 ms", "bytes": hx(self.rx)})
        self.rx.clear()
        self.rx_started = None

    def packet(self, pkt, now):
        mt, pbf, gid, oid = pkt[0] >> 5, (pkt[0] >> 4) & 1, pkt[0] & 0x0F, pkt[1] & 0x3F
        payload = pkt[4:]
        if mt != MT_CMD:
            what = {MT_DATA: "a data packet (data messages are not supported in QM33 SDK)",
                    MT_RSP: "a response from the host", MT_NTF: "a notification from the host"}.get(
                        mt, "message type %d (reserved for testing)" % mt)
            emit({"event": "malformed", "what": what, "bytes": hx(pkt)})
            if self.seg is not None:
                self.seg = None
            self.generic_error(REJECTED if mt == MT_DATA else SYNTAX_ERROR)
            return
        if self.seg is not None and (self.seg[0], self.seg[1]) != (gid, oid):
            emit({"event": "malformed", "what": "segment of GID 0x%X OID 0x%02X while reassembling GID 0x%X OID 0x%02X"
                  % (gid, oid, self.seg[0], self.seg[1]), "bytes": hx(pkt)})
            self.seg = None
            self.generic_error(SYNTAX_ERROR)
        if pbf:
            if self.seg is None:
                self.seg = (gid, oid, bytearray())
            self.seg[2].extend(payload)
            if len(self.seg[2]) > MAX_MESSAGE_SIZE:
                emit({"event": "malformed", "what": "segmented command over %d bytes" % MAX_MESSAGE_SIZE})
                self.seg = None
                self.send(MT_RSP, gid, oid, [INVALID_MESSAGE_SIZE])
            return
        if self.seg is not None:
            payload = bytes(self.seg[2]) + payload
            self.seg = None
            if len(payload) > MAX_MESSAGE_SIZE:
                emit({"event": "malformed", "what": "segmented command over %d bytes" % MAX_MESSAGE_SIZE})
                self.send(MT_RSP, gid, oid, [INVALID_MESSAGE_SIZE])
                return
        self.command(gid, oid, bytes(payload), now)

    def command(self, gid, oid, p, now):
        info = {"event": "command", "name": CMD_NAMES.get((gid, oid), "GID 0x%X OID 0x%02X" % (gid, oid))}
        handler = {
            (0, 0x00): self.core_reset, (0, 0x02): self.core_info, (0, 0x03): self.core_caps,
            (0, 0x04): self.core_set_config, (0, 0x05): self.core_get_config,
            (1, 0x00): self.session_init, (1, 0x01): self.session_deinit, (1, 0x03): self.session_set,
            (1, 0x04): self.session_get, (1, 0x05): self.session_count, (1, 0x06): self.session_state,
            (1, 0x07): self.session_multicast,
            (2, 0x00): self.session_start, (2, 0x01): self.session_stop, (2, 0x03): self.session_ranging_count,
            (0xB, 0x01): self.qorvo_tx_cw, (0xF, 0x00): self.qorvo_calib_reset,
        }.get((gid, oid))
        if handler is None:
            known_gids = (0x0, 0x1, 0x2, 0x9, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF)
            st = UNKNOWN_OID if gid in known_gids else UNKNOWN_GID
            emit({"event": "malformed", "what": "%s for GID 0x%X OID 0x%02X" % (sname(st), gid, oid), "payload": hx(p)})
            self.send(MT_RSP, gid, oid, [st])
            info["status"] = sname(st)
        else:
            handler(p, info, now)
        emit(info)

    def bad_size(self, gid, oid, p, info, shape):
        emit({"event": "malformed", "what": "%s with a %d-byte payload (%s)" % (info["name"], len(p), shape),
              "payload": hx(p)})
        self.send(MT_RSP, gid, oid, [SYNTAX_ERROR])
        info["status"] = "SYNTAX_ERROR"

    def lookup(self, gid, oid, p, info, extra=b""):
        """Session by handle for commands whose payload is handle(4)[...]; None after answering."""
        if len(p) < 4:
            self.bad_size(gid, oid, p, info, "needs a 4-byte session handle")
            return None
        h = le(p[:4])
        info["session_handle"] = h
        s = self.sessions.get(h)
        if s is None:
            self.send(MT_RSP, gid, oid, bytes([SESSION_NOT_EXIST]) + extra)
            info["status"] = sname(SESSION_NOT_EXIST)
        return s

    # -- CORE
    def core_reset(self, p, info, now):
        if len(p) != 1:
            return self.bad_size(0, 0x00, p, info, "reset configuration(1)")
        info["reset_config"] = p[0]
        if p[0] not in (0x00, 0x01):
            self.send(MT_RSP, 0, 0x00, [INVALID_PARAM])
            info["status"] = "INVALID_PARAM"
            return
        self.sessions = {}
        self.next_handle = 1
        self.device_config = {}
        # uci.md §7 V1: NTF READY, RSP OK, NTF READY
        self.device_status(DEVICE_READY)
        self.send(MT_RSP, 0, 0x00, [OK])
        self.device_status(DEVICE_READY)
        info["status"] = "OK"

    def core_info(self, p, info, now):
        if p:
            return self.bad_size(0, 0x02, p, info, "empty")
        self.send(MT_RSP, 0, 0x02, DEVICE_INFO_RSP)
        info["status"] = "OK"

    def core_caps(self, p, info, now):
        if p:
            return self.bad_size(0, 0x03, p, info, "empty")
        self.send(MT_RSP, 0, 0x03, CAPS_RSP)
        info["status"] = "OK"

    def core_value(self, cid):
        if cid == 0x00:
            return bytes([DEVICE_ACTIVE if self.active_count() else DEVICE_READY])
        return self.device_config.get(cid, DEVICE_CONFIG[cid][2])

    def core_set_config(self, p, info, now):
        tl = parse_tlvs(p[1:], p[0]) if p else None
        if tl is None:
            return self.bad_size(0, 0x04, p, info, "n(1), n x [id len value]")
        failed = []
        for cid, v in tl:
            spec = DEVICE_CONFIG.get(cid)
            if spec is None:
                failed.append((cid, INVALID_PARAM))
            elif spec[1] is None:
                failed.append((cid, READ_ONLY))
            elif len(v) == 0:
                self.device_config.pop(cid, None)
            elif len(v) != spec[0] or not spec[1](le(v)):
                failed.append((cid, INVALID_RANGE if len(v) == spec[0] else INVALID_PARAM))
            else:
                self.device_config[cid] = v
        st = OK if not failed else (READ_ONLY if all(f[1] == READ_ONLY for f in failed) else INVALID_PARAM)
        self.send(MT_RSP, 0, 0x04, bytes([st, len(failed)]) + b"".join(bytes(f) for f in failed))
        info.update(status=sname(st), parameters={"0x%02X" % c: hx(v) for c, v in tl})

    def core_get_config(self, p, info, now):
        if not p or len(p) != 1 + p[0]:
            return self.bad_size(0, 0x05, p, info, "n(1), n x id")
        ids = list(p[1:]) or sorted(DEVICE_CONFIG)
        out, st = bytearray(), OK
        for cid in ids:
            if cid in DEVICE_CONFIG:
                v = self.core_value(cid)
            else:
                v, st = b"", INVALID_PARAM
            out += bytes([cid, len(v)]) + v
        self.send(MT_RSP, 0, 0x05, bytes([st, len(ids)]) + out)
        info["status"] = sname(st)

    # -- SESSION_CONFIG
    def session_init(self, p, info, now):
        if len(p) != 5:
            return self.bad_size(1, 0x00, p, info, "session_id(4), session_type(1)")
        sid, stype = le(p[:4]), p[4]
        info.update(session_id=sid, session_type=stype)
        if stype not in (0x00, 0xD0):       # QM33 supports FiRa ranging and device test mode
            st = INVALID_PARAM
        elif any(s.session_id == sid for s in self.sessions.values()):
            st = SESSION_DUPLICATE
        elif len(self.sessions) >= self.max_sessions:
            st = MAX_SESSIONS_EXCEEDED
        else:
            st = OK
        if st != OK:
            self.send(MT_RSP, 1, 0x00, bytes([st]) + u(4, 0))
            info["status"] = sname(st)
            return
        s = Session(sid, stype, self.next_handle)
        self.next_handle += 1
        self.sessions[s.handle] = s
        self.send(MT_RSP, 1, 0x00, bytes([OK]) + u(4, s.handle))       # FiRa 2.0: status + handle
        self.session_status(s, S_INIT, R_MGMT)
        info.update(status="OK", session_handle=s.handle)

    def session_deinit(self, p, info, now):
        if len(p) != 4:
            return self.bad_size(1, 0x01, p, info, "session_handle(4)")
        s = self.lookup(1, 0x01, p, info)
        if s is None:
            return
        was_active = s.state == S_ACTIVE
        del self.sessions[s.handle]
        s.state = S_DEINIT
        self.send(MT_RSP, 1, 0x01, [OK])
        self.session_status(s, S_DEINIT, R_MGMT)
        if was_active and not self.active_count():
            self.device_status(DEVICE_READY)
        info.update(status="OK", session_id=s.session_id)

    def session_set(self, p, info, now):
        if len(p) < 5:
            return self.bad_size(1, 0x03, p, info, "handle(4), n(1), n x [id len value]")
        s = self.lookup(1, 0x03, p, info, extra=b"\x00")
        if s is None:
            return
        tl = parse_tlvs(p[5:], p[4])
        if tl is None:
            return self.bad_size(1, 0x03, p, info, "the TLVs do not add up to the count")
        failed = []
        for tag, v in tl:
            spec = APP.get(tag)
            if spec is None:
                failed.append((tag, INVALID_PARAM))
                continue
            if s.state == S_ACTIVE and tag not in CHANGEABLE_WHILE_ACTIVE:
                failed.append((tag, SESSION_ACTIVE))
                continue
            if len(v) == 0:                       # length 0 = back to the default ([QAPI])
                s.params.pop(tag, None)
                continue
            if len(v) not in spec[1]:
                failed.append((tag, INVALID_PARAM))
                continue
            if spec[2] is not None and not spec[2](le(v)):
                failed.append((tag, INVALID_RANGE))
                continue
            s.params[tag] = v
        if not failed:
            st = OK
        elif all(f[1] == SESSION_ACTIVE for f in failed):
            st = SESSION_ACTIVE
        else:
            st = INVALID_PARAM
        self.send(MT_RSP, 1, 0x03, bytes([st, len(failed)]) + b"".join(bytes(f) for f in failed))
        info.update(status=sname(st), session_id=s.session_id,
                    parameters={app_name(t): hx(v) for t, v in tl})
        if failed:
            info["failed"] = {app_name(t): sname(c) for t, c in failed}
        if s.state == S_INIT:
            missing = s.missing()
            if not missing:
                s.state = S_IDLE
                self.session_status(s, S_IDLE, R_MGMT)
            else:
                emit({"event": "not_configured", "session_handle": s.handle, "missing": missing})

    def session_get(self, p, info, now):
        if len(p) < 5 or len(p) != 5 + p[4]:
            return self.bad_size(1, 0x04, p, info, "handle(4), n(1), n x id")
        s = self.lookup(1, 0x04, p, info, extra=b"\x00")
        if s is None:
            return
        ids = list(p[5:]) or sorted(set(APP) | set(s.params))
        out, st = bytearray(), OK
        for tag in ids:
            if tag in APP:
                v = s.get(tag) or b""
            else:
                v, st = b"", INVALID_PARAM
            out += bytes([tag, len(v)]) + v
        self.send(MT_RSP, 1, 0x04, bytes([st, len(ids)]) + out)
        info["status"] = sname(st)

    def session_count(self, p, info, now):
        if p:
            return self.bad_size(1, 0x05, p, info, "empty")
        self.send(MT_RSP, 1, 0x05, [OK, len(self.sessions)])
        info.update(status="OK", count=len(self.sessions))

    def session_state(self, p, info, now):
        if len(p) != 4:
            return self.bad_size(1, 0x06, p, info, "session_handle(4)")
        s = self.lookup(1, 0x06, p, info, extra=bytes([S_DEINIT]))
        if s is None:
            return
        self.send(MT_RSP, 1, 0x06, [OK, s.state])
        info.update(status="OK", state=STATE_NAMES[s.state])

    def session_multicast(self, p, info, now):
        if len(p) < 6:
            return self.bad_size(1, 0x07, p, info, "handle(4), action(1), n(1), n x controlee")
        s = self.lookup(1, 0x07, p, info, extra=b"\x00")
        if s is None:
            return
        action, n = p[4], p[5]
        entry = {0: 6, 1: 6, 2: 22, 3: 38}.get(action)
        if entry is None or len(p) != 6 + n * entry:
            return self.bad_size(1, 0x07, p, info, "action 0..3 and n x (2 + 4 [+16|32]) bytes")
        info.update(action=action)
        if not (s.is_controller() and s.geti(0x03) == 1):
            self.send(MT_RSP, 1, 0x07, [REJECTED, 0])
            info["status"] = "REJECTED"
            return
        if s.state not in (S_IDLE, S_ACTIVE):
            self.send(MT_RSP, 1, 0x07, [SESSION_NOT_CONFIGURED, 0])
            info["status"] = sname(SESSION_NOT_CONFIGURED)
            return
        dst = s.dst()
        results = []
        for i in range(n):
            addr = bytes(p[6 + i * entry:8 + i * entry])
            if action == 1:
                if addr in dst:
                    dst.remove(addr)
                    results.append((addr, MC_OK))
                else:
                    results.append((addr, MC_ADDRESS_NOT_FOUND))
            elif action in (2, 3) and s.geti(0x02) in (0, 3):
                results.append((addr, MC_SUB_KEY_NOT_APPLICABLE))
            elif addr in dst:
                results.append((addr, MC_ADDRESS_PRESENT))
            elif len(dst) >= MAX_CONTROLEES:
                results.append((addr, MC_LIST_FULL))
            else:
                dst.append(addr)
                results.append((addr, MC_OK))
        if dst:
            s.params[0x07] = b"".join(dst)
            s.params[0x05] = bytes([len(dst)])
        else:
            s.params.pop(0x07, None)
            s.params[0x05] = bytes([1])
        failed = [r for r in results if r[1] != MC_OK]
        self.send(MT_RSP, 1, 0x07, bytes([OK, len(failed)]) + b"".join(a + bytes([c]) for a, c in failed))
        self.send(MT_NTF, 1, 0x07, u(4, s.handle) + bytes([len(results)]) + b"".join(a + bytes([c]) for a, c in results))
        info.update(status="OK", controlees={colon(a): c for a, c in results})

    # -- SESSION_CONTROL
    def start_problem(self, s):
        dst = s.dst()
        n = s.geti(0x05)
        if s.is_controller():
            if s.geti(0x03) == 0 and len(dst) != 1:
                return R_INVALID_DST_ADDRESS_LIST
            if n != len(dst):
                return R_INVALID_NUM_OF_CONTROLEES
        elif len(dst) != 1:
            return R_INVALID_DST_ADDRESS_LIST
        if s.geti(0x1B) * s.geti(0x08) > s.geti(0x09) * 1200:
            return R_INVALID_RANGING_DURATION
        if s.geti(0x02) in (3, 4) and s.get(0x45) is None:
            return R_SESSION_KEY_NOT_FOUND
        if s.geti(0x02) == 4 and not s.is_controller() and s.get(0x46) is None:
            return R_SUB_SESSION_KEY_NOT_FOUND
        return None

    def session_start(self, p, info, now):
        if len(p) != 4:
            return self.bad_size(2, 0x00, p, info, "session_handle(4)")
        s = self.lookup(2, 0x00, p, info)
        if s is None:
            return
        info["session_id"] = s.session_id
        if s.state == S_ACTIVE:
            st = SESSION_ACTIVE
        elif s.state != S_IDLE:
            st = SESSION_NOT_CONFIGURED
        elif s.session_type != 0x00:
            st = REJECTED
        else:
            st = OK
        if st != OK:
            self.send(MT_RSP, 2, 0x00, [st])
            info["status"] = sname(st)
            return
        self.send(MT_RSP, 2, 0x00, [OK])
        info["status"] = "OK"
        problem = self.start_problem(s)
        if problem is not None:
            self.session_status(s, S_IDLE, problem)
            info["start_failed_reason"] = "0x%02X" % problem
            return
        first = not self.active_count()
        s.state = S_ACTIVE
        s.seq = 0
        s.failed_rounds = 0
        s.measurements = 0
        s.started_at = now
        s.next_round = now + s.interval_s()
        if first:
            self.device_status(DEVICE_ACTIVE)
        self.session_status(s, S_ACTIVE, R_MGMT)

    def stop_session(self, s, reason):
        s.state = S_IDLE
        s.next_round = None
        self.session_status(s, S_IDLE, reason)
        if not self.active_count():
            self.device_status(DEVICE_READY)

    def session_stop(self, p, info, now):
        if len(p) != 4:
            return self.bad_size(2, 0x01, p, info, "session_handle(4)")
        s = self.lookup(2, 0x01, p, info)
        if s is None:
            return
        info["session_id"] = s.session_id
        if s.state != S_ACTIVE:
            self.send(MT_RSP, 2, 0x01, [REJECTED])
            info["status"] = "REJECTED"
            return
        self.send(MT_RSP, 2, 0x01, [OK])
        self.stop_session(s, R_MGMT)
        info["status"] = "OK"

    def session_ranging_count(self, p, info, now):
        if len(p) != 4:
            return self.bad_size(2, 0x03, p, info, "session_handle(4)")
        s = self.lookup(2, 0x03, p, info, extra=u(4, 0))
        if s is None:
            return
        self.send(MT_RSP, 2, 0x03, bytes([OK]) + u(4, s.rounds))
        info.update(status="OK", count=s.rounds)

    # -- Qorvo vendor
    def qorvo_tx_cw(self, p, info, now):
        if len(p) != 1:
            return self.bad_size(0xB, 0x01, p, info, "1 = start, 0 = stop")
        st = OK if p[0] in (0, 1) else INVALID_PARAM
        self.send(MT_RSP, 0xB, 0x01, [st])
        info["status"] = sname(st)

    def qorvo_calib_reset(self, p, info, now):
        self.send(MT_RSP, 0xF, 0x00, [OK])
        info["status"] = "OK"

    # -- ranging
    def next_deadline(self):
        ts = [s.next_round for s in self.sessions.values() if s.state == S_ACTIVE and s.next_round is not None]
        return min(ts) if ts else None

    def run_rounds(self, now):
        for s in list(self.sessions.values()):
            if s.state == S_ACTIVE and s.next_round is not None and s.next_round <= now:
                self.round(s, now)
                if s.state == S_ACTIVE:
                    s.next_round += s.interval_s()
                    if s.next_round <= now:               # fell behind (stopped process): no burst
                        s.next_round = now + s.interval_s()

    def evaluate(self, s, addr, now):
        best = None
        for peer in self.peers:
            if peer.addr != addr:
                continue
            status, diffs = peer.evaluate(s, now)
            if best is None or status == OK:
                best = (peer, status, diffs)
            if status == OK:
                break
        return best

    def round(self, s, now):
        seq = s.seq
        s.seq += 1
        s.rounds += 1
        targets = s.targets()
        controller = s.is_controller()
        cm = s.geti(0x0C) & 0x02
        rssi_on = s.geti(0x13) == 1
        meas = bytearray()
        any_ok = False
        results = []
        for i, addr in enumerate(targets):
            hit = self.evaluate(s, addr, now)
            peer = hit[0] if hit else None
            status = hit[1] if hit else RX_TIMEOUT
            if hit and hit[2]:
                key = (s.handle, peer.label)
                if key not in self.mismatch_logged:
                    self.mismatch_logged.add(key)
                    emit({"event": "mismatch", "session_id": s.session_id, "session_handle": s.handle,
                          "peer": peer.label, "kind": peer.kind, "status": sname(status), "differences": hit[2]})
            dist_cm = None
            if status == OK and (peer.distance_m is None):
                status = RX_TIMEOUT
            if status == OK:
                d = float(peer.distance_m)
                dist_cm = int(round(d * 100))
                if dist_cm < 0:
                    status = OK_NEGATIVE_DISTANCE
                raw = min(abs(dist_cm), 0xFFFE)
                rssi = 0
                if rssi_on:
                    dbm = -(40.0 + 20.0 * math.log10(max(abs(d), 0.1)))
                    rssi = max(1, min(255, int(round(-2 * dbm))))
                meas += addr + bytes([status, 0x00]) + u(2, raw) + bytes(12) + bytes([0, rssi]) + bytes(11)
                any_ok = True
            else:
                slot = 0 if not controller else (2 if cm else 1) + i
                meas += addr + bytes([status, 0xFF]) + u(2, 0xFFFF) + bytes(12) + bytes([slot & 0xFF, 0]) + bytes(11)
            results.append((addr, peer, status, dist_cm))
        if s.geti(0x0E) != 0:
            hdr = (u(4, seq) + u(4, s.handle) + bytes([0]) + u(4, s.geti(0x09)) + bytes([1, 0, 0])
                   + u(4, 0) + u(4, 0) + bytes([len(targets)]))
            self.send(MT_NTF, GID_SESSION_CONTROL, 0x00, hdr + meas)
            if s.geti(0xE8) == 1:
                self.send(MT_NTF, GID_QORVO_EXT2, 0x03, self.diagnostics(s, seq, results, controller))
        for addr, peer, status, dist_cm in results:
            label = peer.label if peer else mac_notation(addr)
            key = (s.handle, label)
            if now - self.last_print.get(key, -10.0) >= 1.0:
                self.last_print[key] = now
                emit({"event": "ranging", "session_id": s.session_id, "session_handle": s.handle, "peer": label,
                      "mac": mac_notation(addr), "seq": seq,
                      "status": "ok" if status in (OK, OK_NEGATIVE_DISTANCE) else sname(status),
                      "distance_cm": dist_cm})
        s.measurements += 1
        s.failed_rounds = 0 if any_ok else s.failed_rounds + 1
        max_meas = s.geti(0x32)
        max_retry = s.geti(0x2A)
        if max_meas and s.measurements >= max_meas:
            self.stop_session(s, R_MAX_MEASUREMENTS)
        elif max_retry and s.failed_rounds >= max_retry:
            self.stop_session(s, R_MAX_RR_RETRY)

    def diagnostics(self, s, seq, results, controller):
        """QORVO_FIRA_RANGE_DIAGNOSTICS_NTF (uci.md §6.3, cf. §7 V18): one report per frame of the round."""
        rrc = s.geti(0x0C)
        emitter = s.geti(0xE9) & 0x10
        TX, RX = 1, 0
        reps = []

        def rep(msg, action, addr=None):
            fields = b""
            if emitter and action == RX and addr is not None:
                fields = bytes([0x05]) + u(2, 2) + addr
            reps.append(bytes([msg, action, 0, 1 if fields else 0]) + fields)

        peers = [r[0] for r in results if r[2] in (OK, OK_NEGATIVE_DISTANCE)]
        if controller:
            if rrc & 0x02:
                rep(3, TX)
            rep(0, TX)
            for a in peers:
                rep(1, RX, a)
            rep(2, TX)
            rep(4, TX)
            if rrc & 0x01:
                for a in peers:
                    rep(5, RX, a)
        else:
            ctl = peers[0] if peers else None
            if ctl is not None:
                if rrc & 0x02:
                    rep(3, RX, ctl)
                rep(0, RX, ctl)
                rep(1, TX)
                rep(2, RX, ctl)
                rep(4, RX, ctl)
                if rrc & 0x01:
                    rep(5, TX)
        return u(4, s.handle) + u(4, seq) + bytes([len(reps)]) + b"".join(reps)


# ----------------------------------------------------------------------------------------------
# Main loop

class Emulator:
    def __init__(self, link_path, scenario):
        self.link = Link(link_path)
        self.peers = []
        self.iphones = {}
        for t in scenario.get("tags") or []:
            self.peers.append(Tag(t))
        for a in scenario.get("android") or []:
            self.peers.append(AndroidPhone(a))
        for i in scenario.get("iphones") or []:
            ip = IPhone(i)
            if ip.label in self.iphones:
                raise ValueError("two iPhones named %r" % ip.label)
            self.iphones[ip.label] = ip
            self.peers.append(ip)
        self.device = Device(self.link, self.peers, int(scenario.get("max_sessions", 4)))
        self.stop = False
        self.replug_at = None
        self.stdin_buf = b""
        self.stdin_open = True
        self.next_presence_check = 0.0

    def control(self, line):
        try:
            op = json.loads(line)
            if not isinstance(op, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            emit({"event": "error", "error": "stdin: %s" % e, "line": line[:200]})
            return
        kind = op.get("op")
        if kind == "iphone_run":
            name = op.get("name")
            ip = self.iphones.get(name)
            if ip is None:
                emit({"event": "refused", "name": name, "error": "no iPhone named %r in the scenario" % name})
                return
            try:
                blob = ip.start(op.get("accessory_configuration_data") or "")
            except ValueError as e:
                emit({"event": "refused", "name": name, "error": str(e)})
                return
            r = ip.run
            emit({"event": "shareable_configuration_data", "name": name, "data": base64.b64encode(blob).decode(),
                  "version": r["version"], "session_id": r["session_id"], "short_address": colon(ip.addr),
                  "channel": r["channel"], "preamble_index": r["preamble"],
                  "accessory_address": colon(r["acd"]["address"]),
                  "accessory_role": "initiator" if r["acd"]["role"] else "responder"})
        elif kind == "iphone_stop":
            ip = self.iphones.get(op.get("name"))
            if ip is None:
                emit({"event": "error", "error": "no iPhone named %r" % op.get("name")})
                return
            ip.stop()
            emit({"event": "iphone_stopped", "name": ip.label})
        elif kind == "unplug":
            if self.link.master is not None:
                self.link.close()
                self.device.power_on()
                self.replug_at = time.monotonic() + 1.0
                emit({"event": "unplugged"})
        elif kind == "move":
            for p in self.peers:
                if p.label == op.get("peer"):
                    p.distance_m = op.get("distance_m")
                    emit({"event": "moved", "peer": p.label, "distance_m": p.distance_m})
                    return
            emit({"event": "error", "error": "no peer %r" % op.get("peer")})
        else:
            emit({"event": "error", "error": "unknown op %r" % kind})

    def set_present(self, present):
        if present == self.link.present:
            return
        self.link.present = present
        if present:
            emit({"event": "host_opened"})
        else:
            self.link.outq.clear()
            self.link.flush_stale()
            self.device.host_gone()
            emit({"event": "host_closed"})

    def run(self):
        rpipe, wpipe = os.pipe()
        os.set_blocking(rpipe, False)
        os.set_blocking(wpipe, False)
        signal.set_wakeup_fd(wpipe)

        def on_signal(signum, frame):
            self.stop = True
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)

        try:
            self.link.open()
        except OSError as e:
            emit({"event": "error", "error": "cannot make the link %s: %s" % (self.link.path, e)})
            sys.exit(1)
        emit({"event": "ready", "link": self.link.path})
        try:
            while not self.stop:
                now = time.monotonic()
                if self.replug_at is not None and now >= self.replug_at:
                    self.replug_at = None
                    self.link.open()
                    emit({"event": "plugged", "link": self.link.path})
                if self.link.master is not None and not self.link.present and now >= self.next_presence_check:
                    self.next_presence_check = now + 0.05
                    if not self.link.hung_up():
                        self.set_present(True)
                g = self.device.garbage_deadline()
                if g is not None and now >= g:
                    self.device.flush_garbage()
                self.device.run_rounds(now)

                deadlines = [d for d in (self.device.next_deadline(), self.device.garbage_deadline(),
                                         self.replug_at) if d is not None]
                if self.link.master is not None and not self.link.present:
                    deadlines.append(self.next_presence_check)
                timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else 1.0
                poller = select.poll()
                poller.register(rpipe, select.POLLIN)
                if self.stdin_open:
                    poller.register(0, select.POLLIN)
                if self.link.master is not None and self.link.present:
                    poller.register(self.link.master, select.POLLIN | (select.POLLOUT if self.link.outq else 0))
                try:
                    events = poller.poll(int(math.ceil(timeout * 1000)))
                except InterruptedError:
                    continue
                now = time.monotonic()
                for fd, ev in events:
                    if fd == rpipe:
                        try:
                            os.read(rpipe, 512)
                        except BlockingIOError:
                            pass
                    elif fd == 0:
                        self.read_stdin()
                    elif fd == self.link.master:
                        self.service_master(ev, now)
                if self.link.present and self.link.outq:
                    if not self.link.pump_out():
                        self.set_present(False)
        finally:
            self.link.close()
            emit({"event": "exit"})

    def read_stdin(self):
        try:
            data = os.read(0, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.stdin_open = False
            if self.stdin_buf.strip():
                self.control(self.stdin_buf.decode("utf-8", "replace"))
            self.stop = True
            return
        self.stdin_buf += data
        while b"\n" in self.stdin_buf:
            line, self.stdin_buf = self.stdin_buf.split(b"\n", 1)
            if line.strip():
                self.control(line.decode("utf-8", "replace"))

    def service_master(self, ev, now):
        if ev & select.POLLIN:
            try:
                data = os.read(self.link.master, 65536)
            except BlockingIOError:
                data = None
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                self.set_present(False)
                return
            if data:
                self.device.feed(data, now)
        if ev & (select.POLLHUP | select.POLLERR) and not ev & select.POLLIN:
            self.set_present(False)
            return
        if ev & select.POLLOUT and self.link.outq:
            if not self.link.pump_out():
                self.set_present(False)


def main():
    ap = argparse.ArgumentParser(description="DWM3001C (QM33 UCI firmware) emulator on a pseudo-terminal")
    ap.add_argument("--link", required=True, help="path made a symlink to the pty's slave")
    ap.add_argument("--scenario", required=True, help="scenario JSON file")
    args = ap.parse_args()
    try:
        with open(args.scenario) as f:
            scenario = json.load(f)
        if not isinstance(scenario, dict):
            raise ValueError("the scenario is not a JSON object")
        emu = Emulator(args.link, scenario)
    except (OSError, ValueError, KeyError, TypeError) as e:
        emit({"event": "error", "error": "scenario: %s" % e})
        sys.exit(1)
    emu.run()


if __name__ == "__main__":
    main()
