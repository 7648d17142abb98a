import Gateway
import Proximity
import FoundationEssentials

/// JSON Schemas (draft-07) of the configuration file and the rules file, for editors.
///
/// Why they exist: a YAML language server (VS Code's YAML extension, Neovim, Helix …) that is given
/// a schema completes keys, shows their descriptions and defaults, and flags an unknown key or a
/// wrong value while the person types, long before `uwb2mqtt check` or a reload would. Draft-07
/// because it is the draft yaml-language-server supports most completely.
///
/// They describe exactly the keys `AgentConfiguration` and the rules decoder accept
/// (cli-and-config.md, rules.md) with `additionalProperties: false` everywhere, like the loaders,
/// which reject unknown keys. The loaders stay the authority: checks a schema cannot state (peer
/// addresses listed twice, a duration string's range, thresholds in the right order, names that
/// collide) are only in them, and the descriptions say so where it matters.
public enum Schemas {
    /// The schema of `/etc/uwb2mqtt/config.yaml`.
    public static let config = #"""
    {
      "$schema": "http://json-schema.org/draft-07/schema#",
      "title": "uwb2mqtt configuration",
      "description": "The uwb2mqtt agent's configuration (/etc/uwb2mqtt/config.yaml). Every key has a default; unknown keys are errors. Validate with: uwb2mqtt check",
      "type": "object",
      "additionalProperties": false,
      "required": ["device"],
      "properties": {
        "gateway": {
          "description": "This gateway: its id in topics and where it stands in the site.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "id": {
              "description": "The <gw> segment of every topic. Default: the host name, lower-cased and sanitized.",
              "type": "string",
              "minLength": 1,
              "maxLength": 64
            },
            "position": {
              "description": "Metres in the site frame; absent by default. Enables site-frame positions.",
              "type": ["object", "null"],
              "additionalProperties": false,
              "required": ["x", "y", "z"],
              "properties": {
                "x": {"type": "number", "description": "metres"},
                "y": {"type": "number", "description": "metres"},
                "z": {"type": "number", "description": "metres"}
              }
            },
            "heading_deg": {
              "description": "Site-frame direction of the antenna boresight (azimuth 0), degrees.",
              "type": "number",
              "default": 90
            }
          }
        },
        "device": {
          "description": "The DWM3001C and its FiRa ranging session.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "port": {
              "description": "auto (the first port with USB id 1915:520F that answers UCI), a device path (/dev/dwm3001c, /dev/ttyACM0, /dev/serial/by-id/…) or tcp://host:port for a ser2net-style bridge.",
              "type": "string",
              "minLength": 1,
              "default": "auto",
              "examples": ["auto", "/dev/dwm3001c", "/dev/ttyACM0", "tcp://192.168.1.20:4000"]
            },
            "baud": {
              "description": "Serial speed; ignored by USB CDC-ACM, used by USB-serial adapters and UARTs.",
              "type": "integer",
              "minimum": 1,
              "default": 115200
            },
            "channel": {
              "description": "UWB channel; all devices of a session must agree.",
              "enum": [5, 9],
              "default": 9
            },
            "role": {
              "description": "controller (initiator, ranges with up to 8 peers) or controlee (responder, ranges with its one controller).",
              "enum": ["controller", "controlee"],
              "default": "controller"
            },
            "session_id": {
              "description": "FiRa session id, shared by every device of the session.",
              "type": "integer",
              "minimum": 0,
              "maximum": 4294967295,
              "default": 42
            },
            "address": {
              "description": "This device's short MAC address.",
              "allOf": [{"$ref": "#/definitions/shortAddress"}],
              "default": 0
            },
            "profile": {
              "description": "Whom the session is for; it sets every air parameter below and the default ranging_interval. qorvo: DWM3001C tags running Qorvo's examples (preamble 10, 25 slots of 2ms, no hopping, 200ms). android: one Android phone using Jetpack's unicast DS-TWR (preamble 9, 6 slots of 2ms, hopping, ranging_round_control 3, 240ms; at most one peer).",
              "enum": ["qorvo", "android"],
              "default": "qorvo"
            },
            "preamble_index": {
              "description": "BPRF preamble code; both ends must agree. Default: the profile's (qorvo 10, android 9).",
              "type": "integer",
              "minimum": 9,
              "maximum": 12
            },
            "slots_per_round": {
              "description": "Slots in one ranging round; both ends must agree. Default: the profile's (qorvo 25, android 6). The round (slots × slot_duration) must fit in ranging_interval.",
              "type": "integer",
              "minimum": 4,
              "maximum": 32
            },
            "slot_duration": {
              "description": "1ms or 2ms (1200 or 2400 RSTU); both ends must agree.",
              "anyOf": [
                {"enum": [0.001, 0.002]},
                {"type": "string", "pattern": "^\\s*(1|2)\\s*ms\\s*$"}
              ],
              "default": "2ms"
            },
            "hopping": {
              "description": "FiRa round hopping; both ends must agree. Default: the profile's (qorvo false, android true).",
              "type": "boolean"
            },
            "ranging_round_control": {
              "description": "RANGING_ROUND_CONTROL flags, 0 to 255. Default: the profile's (qorvo: not sent, the firmware's default; android 3).",
              "type": "integer",
              "minimum": 0,
              "maximum": 255
            },
            "session_key_info": {
              "description": "The static-STS key: 16 hex digits, VENDOR_ID then STATIC_STS_IV in wire order, shared by every device of the session. The default 0807010203040506 is a well-known demo key (check warns); make one with: openssl rand -hex 8",
              "allOf": [{"$ref": "#/definitions/sessionKeyInfo"}]
            },
            "ranging_interval": {
              "description": "One ranging round per interval, 50ms to 10s. Default: the profile's (qorvo 200ms, android 240ms).",
              "anyOf": [
                {"type": "number", "minimum": 0.05, "maximum": 10},
                {"$ref": "#/definitions/durationText"}
              ]
            },
            "peers": {
              "description": "The devices to range with: up to 8 for a controller, at most 1 for a controlee or with profile android; none for a gateway that only ranges with phones that ask. Addresses must differ from each other and from device.address; names must stay distinct as topic segments.",
              "type": "array",
              "maxItems": 8,
              "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["address"],
                "properties": {
                  "address": {"description": "The peer's short MAC address.", "allOf": [{"$ref": "#/definitions/shortAddress"}]},
                  "name": {"description": "Used in payloads; topics use it sanitized. Unnamed peers appear by address (\"0x0002\").", "type": "string", "maxLength": 64}
                }
              }
            }
          },
          "allOf": [
            {"if": {"properties": {"role": {"const": "controlee"}}, "required": ["role"]},
             "then": {"properties": {"peers": {"maxItems": 1}}}},
            {"if": {"properties": {"profile": {"const": "android"}}, "required": ["profile"]},
             "then": {"properties": {"peers": {"maxItems": 1}}}}
          ]
        },
        "phones": {
          "description": "Android phones and iPhones that ask for a ranging session over MQTT (the phone_session request).",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "enabled": {
              "description": "Answer phone_session requests.",
              "type": "boolean",
              "default": true
            },
            "session_key_info": {
              "description": "random: a fresh key for every phone session (recommended); or 16 hex digits shared by every phone session (tests and fixed demos only).",
              "anyOf": [
                {"const": "random"},
                {"$ref": "#/definitions/sessionKeyInfo"}
              ],
              "default": "random"
            },
            "no_ranging_timeout": {
              "description": "End a phone's session after this long without a successful round (phones give up after 10s), 1s to 60s.",
              "anyOf": [
                {"type": "number", "minimum": 1, "maximum": 60},
                {"$ref": "#/definitions/durationText"}
              ],
              "default": "10s"
            },
            "max": {
              "description": "Phones ranging at once, 1 to 8; an iPhone's accessory configuration handed out and not yet used counts.",
              "type": "integer",
              "minimum": 1,
              "maximum": 8,
              "default": 8
            },
            "apple": {
              "description": "How iPhones see the gateway, a Nearby Interaction accessory (phone_session with platform ios, then phone_session_start).",
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "role": {"description": "responder: the iPhone is the controller; initiator: the gateway is.", "enum": ["responder", "initiator"], "default": "responder"},
                "uwb_config_version": {"description": "The UWB configuration data's version; 2.0 also asks for the timing under request.", "enum": ["1.0", "1.1", "2.0"], "default": "1.1"},
                "preferred_update_rate": {"description": "Used when phone_session names no update_rate.", "enum": ["user_interactive", "automatic", "infrequent"], "default": "user_interactive"},
                "clock_drift_ppm": {"type": "integer", "minimum": 0, "maximum": 100, "default": 25},
                "chipset_ids": {"description": "qorvo: the ids Qorvo's boards send; zero: as AOSP's test app.", "enum": ["qorvo", "zero"], "default": "qorvo"},
                "accessory_data_timeout": {
                  "description": "Accessory configuration data not used by a phone_session_start within this long is dropped, 5s to 10min.",
                  "anyOf": [{"type": "number", "minimum": 5, "maximum": 600}, {"$ref": "#/definitions/durationText"}],
                  "default": "30s"
                },
                "request": {
                  "description": "What UWB config 2.0 asks iOS for (iOS may choose otherwise).",
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "hopping": {"type": "boolean", "default": false},
                    "slots_per_round": {"type": "integer", "minimum": 4, "maximum": 32, "default": 25},
                    "slot_duration": {"description": "Whole milliseconds, 1ms to 10ms.", "anyOf": [{"type": "number"}, {"$ref": "#/definitions/durationText"}], "default": "2ms"},
                    "ranging_interval": {"description": "50ms to 5s, at least the round.", "anyOf": [{"type": "number"}, {"$ref": "#/definitions/durationText"}], "default": "200ms"}
                  }
                }
              }
            }
          }
        },
        "mqtt": {
          "description": "The broker and what is published to it.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "url": {
              "description": "mqtt://host:port, or mqtts://host:port for TLS.",
              "type": "string",
              "pattern": "^mqtts?://",
              "default": "mqtt://127.0.0.1:1883"
            },
            "client_id": {"description": "Default: uwb2mqtt-<gateway id>.", "type": ["string", "null"]},
            "username": {"description": "Absent by default (anonymous).", "type": ["string", "null"]},
            "password_file": {"description": "A file holding only the password (one trailing newline is ignored); never the password itself here.", "type": ["string", "null"]},
            "ca_file": {"description": "TLS: the CA that signed the broker's certificate (absent: the system CA store).", "type": ["string", "null"]},
            "cert_file": {"description": "TLS client certificate; goes with key_file.", "type": ["string", "null"]},
            "key_file": {"description": "TLS client key; goes with cert_file.", "type": ["string", "null"]},
            "base_topic": {
              "description": "<base> in every topic: <base>/<gw>/…; no wildcards, no leading or trailing '/'; at most 256 bytes.",
              "type": "string",
              "maxLength": 256,
              "pattern": "^[^/+#]([^+#]*[^/+#])?$",
              "default": "uwb2mqtt"
            },
            "keepalive": {
              "description": "MQTT keepalive, 5s to 65535s; the broker drops the agent after 1.5 times this.",
              "anyOf": [
                {"type": "number", "minimum": 5, "maximum": 65535},
                {"$ref": "#/definitions/durationText"}
              ],
              "default": "30s"
            },
            "protocol": {
              "description": "MQTT version to ask the broker for: 5, or 3.1.1; a broker that refuses 5 gets 3.1.1 (logged once).",
              "enum": [5, "5", "3.1.1"],
              "default": 5
            },
            "message_expiry": {
              "description": "MQTT 5: range, feedback, position and metrics expire this long after they were published, for subscribers the broker queued them for; whole seconds up to 1d, 0s never.",
              "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 86400},
                {"$ref": "#/definitions/durationText"}
              ],
              "default": "5s"
            },
            "will_delay": {
              "description": "MQTT 5: the broker publishes the will (status offline) only this long after losing the connection, and not at all when the agent is back sooner; whole seconds up to 1d, 0s at once.",
              "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 86400},
                {"$ref": "#/definitions/durationText"}
              ],
              "default": "10s"
            },
            "response_topic_prefixes": {
              "description": "MQTT 5: topic prefixes under which requesters may have answers sent (their Response Topic), besides <base>/<gw>/response/…; e.g. [clients/].",
              "type": "array",
              "items": {"type": "string", "minLength": 1, "maxLength": 256, "pattern": "^[^+#]*$"},
              "default": []
            },
            "qos_ranges": {
              "description": "QoS of the per-measurement range messages.",
              "enum": [0, 1],
              "default": 0
            },
            "state_interval": {
              "description": "Retained peer state at most this often (and on every change).",
              "allOf": [{"$ref": "#/definitions/duration"}],
              "default": "1s"
            },
            "metrics_interval": {
              "description": "Period of <base>/<gw>/metrics, at least 1s.",
              "anyOf": [
                {"type": "number", "minimum": 1},
                {"$ref": "#/definitions/durationText"}
              ],
              "default": "30s"
            },
            "home_assistant": {
              "description": "Publish Home Assistant discovery configs under homeassistant/.",
              "type": "boolean",
              "default": false
            },
            "spool_dir": {
              "description": "Events and retained state wait here while the broker is away.",
              "type": "string",
              "default": "/var/lib/uwb2mqtt"
            },
            "spool_max_bytes": {
              "description": "The spool's bound, at least 64KiB: bytes, or with a unit (KiB, MiB, GiB; KB, MB, GB are powers of 1000).",
              "anyOf": [
                {"type": "integer", "minimum": 65536},
                {"type": "string", "pattern": "^\\s*([0-9]+(\\.[0-9]*)?|\\.[0-9]+)\\s*(KiB|MiB|GiB|KB|MB|GB|B)$"}
              ],
              "default": "64MiB"
            }
          },
          "dependencies": {
            "cert_file": ["key_file"],
            "key_file": ["cert_file"]
          }
        },
        "rules": {
          "description": "The proximity rules file; reloaded on SIGHUP and when it changes.",
          "type": "string",
          "default": "/etc/uwb2mqtt/rules.yaml"
        },
        "rules_topic": {
          "description": "A site-wide MQTT topic whose (retained) rules file this gateway follows: validated whole, written to rules (the old file kept as <rules>.bak) and loaded; the outcome on <base>/<gw>/rules. Outside the gateway's own tree, e.g. uwb2mqtt-fleet/rules. Absent by default.",
          "type": ["string", "null"],
          "pattern": "^[^+#]+$"
        },
        "record": {
          "description": "Also write every UCI packet received to this file (rotated at 16 MiB, four files), for uwb2mqtt replay. Absent by default.",
          "type": ["string", "null"]
        },
        "log_level": {
          "description": "Log verbosity (stderr, the journal).",
          "enum": ["error", "warning", "info", "debug"],
          "default": "info"
        }
      },
      "definitions": {
        "shortAddress": {
          "description": "A short MAC address: 0x0000 to 0xFFFF (the notation of uwb2mqtt decode) or a plain integer.",
          "anyOf": [
            {"type": "integer", "minimum": 0, "maximum": 65535},
            {"type": "string", "pattern": "^\\s*(0[xX])?[0-9a-fA-F]{1,4}\\s*$"}
          ]
        },
        "sessionKeyInfo": {
          "description": "8 bytes as 16 hex digits (spaces or colons between bytes allowed).",
          "type": "string",
          "pattern": "^\\s*[0-9a-fA-F]{2}([ :]*[0-9a-fA-F]{2}){7}\\s*$"
        },
        "durationText": {
          "description": "A duration with a unit: 300ms, 2s, 1m, 1h.",
          "type": "string",
          "pattern": "^\\s*([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?\\s*(ms|s|m|h)\\s*$"
        },
        "duration": {
          "description": "A duration: 300ms, 2s, 1m, 1h, or a number of seconds.",
          "anyOf": [
            {"type": "number", "minimum": 0},
            {"$ref": "#/definitions/durationText"}
          ]
        }
      }
    }
    """#

    /// The schema of the proximity rules file (`rules.yaml`, rules.md).
    /// Its rule kinds' sections come from the kinds themselves (`RuleKinds`).
    public static let rules: String = #"""
    {
      "$schema": "http://json-schema.org/draft-07/schema#",
      "title": "uwb2mqtt proximity rules, version 1",
      "description": "Zones, stages, approaches, facing and rankings over the filtered distance of each peer. The agent validates the whole file before it swaps it in. Check with: uwb2mqtt check --rules FILE",
      "type": "object",
      "additionalProperties": false,
      "required": ["version"],
      "properties": {
        "version": {"description": "The rules format version.", "const": 1},
        "filter": {
          "description": "Distance smoothing for every peer.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "kind": {
              "description": "kalman (constant-velocity Kalman), one_euro (One-Euro filter) or none (raw distances).",
              "enum": ["kalman", "one_euro", "none"],
              "default": "kalman"
            },
            "max_speed": {
              "description": "m/s: a jump faster than this is an outlier and is not followed at once (ignored with kind: none).",
              "type": "number",
              "exclusiveMinimum": 0,
              "default": 3
            }
          }
        },
        "signal_lost_after": {
          "description": "No valid measurement for this long: link lost. Longer than 0.",
          "allOf": [{"$ref": "#/definitions/duration"}],
          "default": "2s"
        },
        "direction": {
          "description": "When an angle of arrival counts as a direction.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "min_fom": {
              "description": "An angle whose figure of merit (0…100) is lower counts as unavailable.",
              "type": "integer",
              "minimum": 0,
              "maximum": 100,
              "default": 50
            },
            "max_age": {
              "description": "An angle older than this is unavailable, never carried forward.",
              "allOf": [{"$ref": "#/definitions/duration"}],
              "default": "500ms"
            }
          }
        },
    """# + "\n" + RuleKinds.schemaProperties(indent: 4) + "\n" + #"""
      },
      "definitions": {
        "name": {
          "description": "The rule's name, unique among rules of its kind; used in events and topics.",
          "type": "string",
          "minLength": 1,
          "maxLength": 64
        },
        "distance": {
          "description": "Metres as a number (1.2), or a string with a unit: 60cm, 1.2m, 1200mm.",
          "anyOf": [
            {"type": "number", "minimum": 0},
            {"type": "string", "pattern": "^\\s*([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?\\s*(mm|cm|m)$"}
          ]
        },
        "duration": {
          "description": "A duration: 300ms, 2s, 1m, or a number of seconds.",
          "anyOf": [
            {"type": "number", "minimum": 0},
            {"type": "string", "pattern": "^\\s*([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?\\s*(ms|s|m)$"}
          ]
        },
        "peers": {
          "description": "Peer names, addresses (0x0001, or 16 hex digits) or globs (\"cart-*\", \"phone-?\", \"*\"), at most 64 of at most 64 characters each; default [\"*\"]. Only * and ? are glob syntax.",
          "type": "array",
          "minItems": 1,
          "maxItems": 64,
          "items": {
            "anyOf": [
              {"type": "integer"},
              {"type": "string", "maxLength": 64, "pattern": "^(0[xX]([0-9a-fA-F]{4}|[0-9a-fA-F]{16})|(?!0[xX][^*?]*$)[^\\[\\]{}\\\\]+)$"}
            ]
          }
        },
        "cue": {
          "description": "Free-form cue attributes (a mapping, at most 1024 bytes as JSON), or null for none.",
          "type": ["object", "null"]
        }
      }
    }
    """#
}
