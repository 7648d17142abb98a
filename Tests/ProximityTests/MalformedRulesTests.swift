import Proximity
import Testing

/// Each malformed file fails with exactly this `file:line:column: message`, pointing at the offending
/// key or value.
@Suite struct MalformedRulesTests {
    static let zone = "version: 1\nzones:\n  - name: counter\n"

    static let cases: [(String, String)] = [
        ("", "rules.yaml:1:1: expected a mapping (key: value pairs), found an empty file"),
        ("version: 2\n", "rules.yaml:1:10: unsupported rules version 2 (this agent reads version 1)"),
        ("version: one\n", "rules.yaml:1:10: expected a whole number, found \"one\""),
        ("zones: []\n", "rules.yaml:1:1: missing key \"version\""),
        ("version: 1\nzonez: []\n", "rules.yaml:2:1: unknown key \"zonez\" (expected one of: approaches, direction, facing, filter, rankings, signal_lost_after, stages, version, zones)"),
        ("version: 1\nfilter: {kind: median}\n", "rules.yaml:2:16: invalid value \"median\" (expected one of: kalman, one_euro, none)"),
        ("version: 1\nfilter: {max_speed: 0}\n", "rules.yaml:2:21: max_speed must be a number of metres per second greater than 0, found 0"),
        ("version: 1\nsignal_lost_after: soon\n", "rules.yaml:2:20: expected a duration such as 300ms, 2s, 1min, 1h or a number of seconds, found \"soon\""),
        ("version: 1\nsignal_lost_after: 0s\n", "rules.yaml:2:20: signal_lost_after must be longer than 0"),
        ("version: 1\ndirection: {min_fom: 150}\n", "rules.yaml:2:22: min_fom must be between 0 and 100, found 150"),
        ("version: 1\ndirection: {max_age: -1}\n", "rules.yaml:2:22: a duration cannot be negative, found \"-1\""),
        (zone + "    enter_within: 1.0\n", "rules.yaml:3:5: missing key \"exit_beyond\""),
        (zone + "    enter_within: 1.3\n    exit_beyond: 1.0\n", "rules.yaml:5:18: exit_beyond (1 m) must be greater than enter_within (1.3 m)"),
        (zone + "    enter_within: 1.0\n    exit_beyond: 1.0\n", "rules.yaml:5:18: exit_beyond (1 m) must be greater than enter_within (1 m)"),
        (zone + "    enter_within: -1\n    exit_beyond: 1.0\n", "rules.yaml:4:19: a distance cannot be negative, found \"-1\""),
        (zone + "    enter_within: 1 metre\n    exit_beyond: 2\n", "rules.yaml:4:19: expected a distance such as 1.2 (metres), 60cm, 1.2m or 1200mm, found \"1 metre\""),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    dwell: 3 hours\n", "rules.yaml:6:12: expected a duration such as 300ms, 2s, 1min, 1h or a number of seconds, found \"3 hours\""),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    peers: []\n", "rules.yaml:6:12: peers cannot be empty (omit the key to select every peer)"),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    peers: [\"cart-[ab]\"]\n", "rules.yaml:6:13: invalid glob \"cart-[ab]\": \"[\" is not supported (only * and ? are)"),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    peers: [0x12]\n", "rules.yaml:6:13: invalid address \"0x12\": expected 0x and 4 hex digits (short) or 16 (extended)"),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    peers: [{name: x}]\n", "rules.yaml:6:13: expected a peer name, address or glob, found a mapping"),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    exitbeyond: 3\n", "rules.yaml:6:5: unknown key \"exitbeyond\" (expected one of: dwell, enter_within, exit_beyond, name, peers)"),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n  - name: counter\n    enter_within: 1\n    exit_beyond: 2\n", "rules.yaml:6:11: duplicate zone name \"counter\" (first used at line 3)"),
        ("version: 1\nzones: {name: a}\n", "rules.yaml:2:8: expected a list, found a mapping"),
        ("version: 1\nstages:\n  bands: []\n", "rules.yaml:3:10: bands must list at least one band"),
        ("version: 1\nstages:\n  bands:\n    - {name: far, beyond: 5}\n    - {name: near, beyond: 1}\n", "rules.yaml:5:28: the last band \"near\" is the nearest and has no lower bound; remove beyond"),
        ("version: 1\nstages:\n  bands:\n    - {name: far}\n    - {name: near}\n", "rules.yaml:4:7: band \"far\" needs beyond (only the last, nearest band has no lower bound)"),
        ("version: 1\nstages:\n  bands:\n    - {name: far, beyond: 1}\n    - {name: mid, beyond: 5}\n    - {name: near}\n", "rules.yaml:5:27: beyond (5 m) must be less than the previous band's beyond (1 m): bands go from far to near"),
        ("version: 1\nstages:\n  bands:\n    - {name: far, beyond: 5}\n    - {name: far}\n", "rules.yaml:5:14: duplicate band name \"far\" (first used at line 4)"),
        ("version: 1\nstages:\n  hysteresis: -0.2\n  bands:\n    - {name: far}\n", "rules.yaml:3:15: a distance cannot be negative, found \"-0.2\""),
        ("version: 1\nstages:\n  bands:\n    - {name: far, attributes: [1, 2]}\n", "rules.yaml:4:31: attributes must be a mapping (key: value pairs)"),
        ("version: 1\napproaches:\n  - {name: h, start_within: 0.1, confirm_within: 0.2, cancel_beyond: 1}\n", "rules.yaml:3:50: confirm_within (0.2 m) must be less than start_within (0.1 m)"),
        ("version: 1\napproaches:\n  - {name: h, start_within: 0.6, confirm_within: 0.1, cancel_beyond: 0.5}\n", "rules.yaml:3:70: cancel_beyond (0.5 m) must be greater than start_within (0.6 m)"),
        ("version: 1\napproaches:\n  - {name: h, start_within: 0.6, confirm_within: 0.1}\n", "rules.yaml:3:5: missing key \"cancel_beyond\""),
        ("version: 1\nfacing: {tolerance_deg: wide}\n", "rules.yaml:2:25: tolerance_deg must be a number of degrees between 0 and 180 or \"stage\", found \"wide\""),
        ("version: 1\nfacing: {tolerance_deg: stage}\n", "rules.yaml:2:25: tolerance_deg: stage needs a stages section whose bands set facing_tolerance_deg"),
        ("version: 1\nstages:\n  bands:\n    - {name: far, beyond: 2, attributes: {facing_tolerance_deg: 60}}\n    - {name: near}\nfacing: {tolerance_deg: stage}\n", "rules.yaml:5:7: band \"near\" needs attributes.facing_tolerance_deg, since facing.tolerance_deg is \"stage\""),
        ("version: 1\nfacing:\n  cues:\n    gained: beep\n", "rules.yaml:4:13: the gained cue must be a mapping (key: value pairs) or null, found \"beep\""),
        ("version: 1\nfacing:\n  cues:\n    blinking: {}\n", "rules.yaml:4:5: unknown key \"blinking\" (expected one of: gained, holding, lost)"),
        ("version: 1\nrankings:\n  - {name: r, nearby_bonus: 10}\n", "rules.yaml:3:29: nearby_bonus needs nearby_within (the distance that earns it)"),
        ("version: 1\nrankings:\n  - {name: r, facing_bonus: -5}\n", "rules.yaml:3:29: facing_bonus cannot be negative, found -5"),
        ("version: 1\nrankings:\n  - {name: r, base_scores: {cart: high}}\n", "rules.yaml:3:35: expected a number, found \"high\""),
        ("version: 1\nrankings:\n  - {name: \"\"}\n", "rules.yaml:3:12: a name cannot be empty"),
        ("version: 1\nrankings:\n  - {name: \(String(repeating: "r", count: 65))}\n", "rules.yaml:3:12: a name is at most 64 characters, this one has 65"),
        // A file that is no rules file, and values quoted as short excerpts (issue #35).
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n",
         "rules.yaml:1:1: expected a mapping (key: value pairs) at the top of the file, found text (not quoted: this may not be the file meant)"),
        ("version: b3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n", "rules.yaml:1:10: expected a whole number, found \"b3BlbnNzaC1rZXktdjEA…\""),
        (zone + "    enter_within: 1\n    exit_beyond: 2\n    peers: [\"b3BlbnNzaC1rZXktdjEAAAAA[x]\"]\n",
         "rules.yaml:6:13: invalid glob \"b3BlbnNzaC1rZXktdjEA…\": \"[\" is not supported (only * and ? are)"),
        ("version: 1\nfacing: {tolerance_deg: b3BlbnNzaC1rZXktdjEAAAAABG5vbmU}\n",
         "rules.yaml:2:25: tolerance_deg must be a number of degrees between 0 and 180 or \"stage\", found \"b3BlbnNzaC1rZXktdjEA…\""),
        ("version: 1\nfacing: {tolerance_deg: [1, 2]}\n",
         "rules.yaml:2:25: tolerance_deg must be a number of degrees between 0 and 180 or \"stage\", found a list"),
        ("version: 1\nzones:\n\t- name: a\n", "rules.yaml:3:1: tab characters cannot be used for indentation, use spaces (found character that cannot start any token while scanning for the next token)"),
    ]

    @Test(arguments: cases)
    func fails(text: String, expected: String) {
        #expect(rulesFailure(text) == expected)
    }
}
