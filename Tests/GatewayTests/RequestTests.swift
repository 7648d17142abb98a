import Testing
import Gateway

/// What a request body gets as an answer (mqtt-api.md, requests): the answer a subscriber reads.
@Suite struct RequestTests {
    func answer(_ name: String, _ body: String) -> String {
        RequestParsing.responseJSON(name: name, payload: Array(body.utf8))
    }

    @Test func anEmptyBodyOrAnObjectIsARequest() {
        #expect(answer("state", "").hasPrefix(#"{"ok": true, "data": {"device": "ranging", "peers": [{"ts": "#))
        #expect(answer("state", " {\"id\": \"a-1\", \"extra\": [1, {}]} \n").hasPrefix(#"{"id": "a-1", "ok": true, "data": {"device": "ranging", "#))
        #expect(answer("ping", #"{"id": 7}"#).hasPrefix(#"{"id": 7, "ok": true, "data": {"version": ""#))
    }

    @Test func anUnknownNameIsAnsweredAndAnOversizedOneDroppedUnanswered() {
        #expect(answer("frobnicate", #"{"id": "x"}"#).hasPrefix(#"{"id": "x", "ok": false, "error": "unknown request \"frobnicate\""#))
        #expect(answer(String(repeating: "n", count: 65), "") == "")
        // A name that starts with a combining mark is still a name under `request/`.
        #expect(answer("\u{0307}x", "").hasPrefix(#"{"ok": false, "error": "unknown request"#))
    }

    @Test func aPhoneSessionIsAnsweredWhenItsSessionRanges() {
        let text = answer("phone_session", #"{"id": 1, "name": "anna", "phone_role": "controlee", "config_id": 1, "phone_address": "5A:3C"}"#)
        #expect(text.hasPrefix(#"{"id": 1, "ok": true"#), "\(text)")
    }

    /// `reload_rules` waits for the rules read that the shell carries out; the harness carries it
    /// out too, so an empty body (the fuzzer's 12-byte input) is answered, here with why the
    /// default rules file could not be read.
    @Test func reloadRulesIsAnsweredOnceTheRulesAreRead() {
        let text = answer("reload_rules", "")
        #expect(text.hasPrefix(#"{"ok": "#) && text.contains("/etc/uwb2mqtt/rules.yaml"), "\(text)")
    }

    @Test func malformedJSONIsAnsweredWithWhereReadingStopped() {
        #expect(answer("ping", #"{"id": "1" "x": 2}"#)
                == #"{"ok": false, "error": "the request body is not a JSON object (expected ',' or '}' at byte 11)"}"#)
        #expect(answer("ping", #"{"id": "1",}"#).contains("(expected a member name in quotes at byte 11)"))
        #expect(answer("ping", "[1, 2]") == #"{"ok": false, "error": "the request body is not a JSON object"}"#)
    }
}
