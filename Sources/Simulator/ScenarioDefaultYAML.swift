/// `Scenario.default` as a scenario file: the template users copy, and the file the integrator
/// decodes once the YAML decoder lands (a test should then assert it decodes to `.default`).
extension Scenario {
    public static let defaultYAML: String = """
    # uwb2mqtt simulator scenario. Times are seconds from the start, distances metres,
    # angles degrees. Every key is optional except peers[].address, peers[].path, path[].t,
    # path[].distance (or path[].x and path[].y) and faults[].at / faults[].kind; unknown keys
    # are errors.
    name: default
    seed: 7                     # every random draw comes from this: same seed, same bytes
    duration: 60                # one run lasts a minute …
    at_end: loop                # … then starts over (loop | stop)
    clock: start                # scene time 0 = when the simulator starts. `wall`: scene time =
                                # wall-clock seconds mod duration, so several simulated gateways
                                # (one `run --simulate` each) see a peer at the same place at the
                                # same moment; needs duration and at_end: loop

    device:
      aoa: false                # a DWM3001C has one antenna: no angles, AoA FOM always 0
      # ranging_interval: 0.1   # seconds; overrides the RANGING_DURATION the host sets
      # status_delay_ms: [3, 20] # status notifications come this late after their response
      # status_reorder: true    # … and in any order, some before their response
      # max_sessions: 1         # sessions the firmware holds at once (default 5)

    noise:
      sigma: 0.05               # Gaussian distance noise (m)
      angle_sigma: 3            # Gaussian angle noise (deg), when angles are reported
      dropout_probability: 0.01 # chance that any one measurement is lost (status 0x21)

    peers:
      # Walks up from 12 m (stage "locate"), through "point", into the counter zone, starts a
      # handoff, backs off (approach canceled), comes back to 8 cm (approach completed, stage
      # "reach"; a noisy round may read negative, status 0x1B), holds 5 s, walks away.
      - address: 0x0001
        name: phone-anna
        path:                   # keyframes, linearly interpolated; angles are used only with aoa: true
          - {t: 0,    distance: 12,   azimuth: 40,  elevation: 10}
          - {t: 4,    distance: 9,    azimuth: 35,  elevation: 8}
          - {t: 10,   distance: 3,    azimuth: 20,  elevation: 5}
          - {t: 13,   distance: 1,    azimuth: 8,   elevation: 2}
          - {t: 14.5, distance: 0.5,  azimuth: 4,   elevation: 0}
          - {t: 15.5, distance: 0.9,  azimuth: 6,   elevation: 0}
          - {t: 17,   distance: 0.55, azimuth: 3,   elevation: 0}
          - {t: 18.5, distance: 0.08, azimuth: 1,   elevation: 0}
          - {t: 23.5, distance: 0.08, azimuth: 0,   elevation: 0}
          - {t: 25,   distance: 0.8,  azimuth: -10, elevation: 0}
          - {t: 28,   distance: 1.6,  azimuth: -25, elevation: 0}
          - {t: 34,   distance: 6,    azimuth: -45, elevation: 3}
          - {t: 40,   distance: 12,   azimuth: -60, elevation: 5}
        nlos:                   # behind a shelf: NLoS flag, distance reads `bias` m long, low FOM
          - {from: 6, to: 8, bias: 0.4}
        dropouts:               # a short burst of lost rounds, shorter than signal_lost_after
          - {from: 11, to: 12, probability: 0.8}

      # Parked about 3 m away; out of range for 10 s (link lost, then regained).
      - address: 0x0002
        name: tool-cart
        path:
          - {t: 0,  distance: 3,   azimuth: -70, elevation: 0}
          - {t: 20, distance: 3.2, azimuth: -68, elevation: 0}
          - {t: 60, distance: 3,   azimuth: -70, elevation: 0}
        out_of_range:
          - {from: 30, to: 40}

      # A path may instead place a peer in site coordinates (metres, the frame of the gateways'
      # `gateway.position`); each simulated gateway then reports its own straight-line distance
      # to the peer, with the noise, nlos and dropouts above. Every keyframe of a path uses the
      # same kind; site keyframes carry no angles; z defaults to 1.0. Give each gateway's config
      # a `gateway.position` (required) and use clock: wall so that all gateways agree:
      # - address: 0x0003
      #   name: badge-ben
      #   path:
      #     - {t: 0,  x: 0.5, y: 0.5}
      #     - {t: 20, x: 6,   y: 0.5, z: 1.2}
      #     - {t: 40, x: 6,   y: 4}

      # An Android phone (Jetpack androidx.core.uwb) is a peer with a `phone:` entry: the
      # RangingParameters its app uses after the exchange with the gateway. It answers only a
      # gateway session that matches them over the air (session id, channel, preamble, slots,
      # slot duration, interval, hopping, key, addresses, complementary roles); otherwise it
      # stays silent (status 0x21) and the log says what differs. It gives up 10 s after its
      # last successful round (or its start) and waits for the next start_at. `address` stays
      # the phone's address as uwb2mqtt writes it; phone.address may repeat it in Jetpack's
      # wire order ("AB:CD" is 0xCDAB) and must then agree.
      # - address: 0xCDAB
      #   name: phone-carl
      #   path:
      #     - {t: 0, distance: 2}
      #   phone:
      #     address: "AB:CD"            # optional, Jetpack's localAddress
      #     role: controlee             # controlee (gateway controls) | controller
      #     config_id: 1                # Jetpack numbering: 1 unicast, 2 one-to-many
      #     session_id: 42              # 1…2147483647, as the gateway answered
      #     session_key_info: "0807010203040506"  # VENDOR_ID + STATIC_STS_IV, wire order
      #     gateway_address: "00:00"    # the gateway, Jetpack form (wire order)
      #     channel: 9                  # 5 | 9
      #     preamble_index: 9           # 9…12
      #     update_rate: automatic      # automatic | frequent | infrequent: 240/120/600 ms
      #                                 # (config 2: 200/120/600)
      #     slot_duration_ms: 2         # 1 | 2
      #     start_at: 0                 # scene seconds; again on every loop
      #   # Or, with `run --simulate`, its app asks the gateway over MQTT (phone_session) and
      #   # ranges with what the gateway answers; session_id, session_key_info, gateway_address
      #   # and start_at are then not given:
      #   # phone:
      #   #   role: controlee
      #   #   app: {name: phone-ben, start_at: 1, pointing: [{t: 0, azimuth: 5, elevation: 0}]}

      # An iPhone (Nearby Interaction accessory protocol) is a peer with `iphone: {}`. It answers
      # nothing until its app runs an NISession with the gateway's accessory configuration data
      # (from code: SimulatedDevice.startIPhone), then only a gateway session that matches what
      # iOS chose (session id, channel, preamble, slots, slot duration, interval, RRC, IV, Apple's
      # VENDOR_ID, addresses, complementary roles, hopping); otherwise it stays silent and the log
      # says what differs. It gives up 10 s after its last successful round (or its start) and
      # waits for a new run. `address` stands for the random address iOS picks for the session.
      # - address: 0x7570
      #   name: iphone-dana
      #   path:
      #     - {t: 0, distance: 1.5}
      #   iphone: {}                    # no keys: the rest comes from the exchange
      #   # With `run --simulate`, an app can play the phone's side over MQTT, and report where the
      #   # phone sees the gateway (azimuth 0: pointing straight at it; null outside ±60° / ±45°):
      #   # iphone:
      #   #   app:
      #   #     name: iphone-dana
      #   #     start_at: 2
      #   #     pointing: [{t: 0, azimuth: 70, elevation: -20}, {t: 12, azimuth: 5, elevation: 0}]

    faults: []
    # Fault injections, for testing recovery (see the built-in "faults" scenario):
    #   - {at: 3,  kind: garbage, bytes: 24}                          # random bytes between packets
    #   - {at: 5,  kind: split_writes, until: 8, max_chunk: 3, gap: 0.002}
    #   - {at: 10, kind: session_stopped, reason: 0x01}               # MAX_RANGING_ROUND_RETRY_COUNT_REACHED
    #   - {at: 14, kind: device_error}                                # DEVICE_STATUS_NTF(ERROR)
    #   - {at: 18, kind: device_reset}                                # spontaneous reboot, sessions lost
    #   - {at: 22, kind: unplug, duration: 2}                         # USB pulled for 2 s

    """
}
