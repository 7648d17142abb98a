import Proximity

/// The example rules file of spec/rules.md, comments included: a starting point for rule editors
/// and a fixture that must always load.
extension RulesFile {
    public static let exampleYAML: String = """
        version: 1

        filter:                     # distance smoothing for every peer
          kind: kalman              # kalman | one_euro | none
          max_speed: 3              # m/s: a jump faster than this is an outlier and is not followed at once
                                    # (ignored with kind: none)
        signal_lost_after: 2s       # no valid measurement for this long: link "lost"
        direction:
          min_fom: 50               # an angle whose figure of merit is lower counts as unavailable
          max_age: 500ms            # an angle older than this is unavailable, never carried forward

        zones:                      # presence areas with hysteresis and debounce
          - name: counter
            peers: ["*"]
            enter_within: 1.0       # inside when the filtered distance is at or below this …
            exit_beyond: 1.3        # … and outside again only beyond this
            dwell: 300ms            # a change must hold this long before the event fires

        stages:                     # ordered guidance bands, far to near; the last band has no lower bound
          hysteresis: 0.2           # metres a distance must pass a boundary by before the stage changes
          bands:
            - name: locate
              beyond: 10
              attributes: {facing_tolerance_deg: 90, shows_distance: true}
            - name: point
              beyond: 1
              attributes: {facing_tolerance_deg: 35, shows_distance: true}
            - name: reach
              attributes: {facing_tolerance_deg: 15, shows_distance: false}

        approaches:                 # approach-to-confirm: moving in confirms, moving away cancels
          - name: handoff
            peers: ["phone-*"]
            start_within: 0.6       # phase ready: progress runs 0 → 1 between start and confirm
            confirm_within: 0.12    # phase completed (fires once until the peer leaves beyond start)
            cancel_beyond: 0.7      # leaving beyond this before completion: approach_canceled

        facing:                     # needs a valid azimuth; never evaluated from distance alone
          tolerance_deg: stage      # a number, or "stage" for the current stage's facing_tolerance_deg
          cues:
            gained: {sound: direction-lock, haptic: snap}   # attached to the facing_gained event
            holding: {haptic: pulse}                         # attached to feedback while facing
            lost: null

        rankings:                   # who is the intended target: scored candidates, best first
          - name: share-target
            peers: ["*"]
            within: 5               # candidates farther than this are left out
            base_scores: {tool-cart: 42}
            nearby_within: 2
            nearby_bonus: 10
            facing_bonus: 20        # only added where direction is available
        """
}
