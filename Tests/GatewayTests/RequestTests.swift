import Testing
import Gateway

/// What a request body gets as an answer (mqtt-api.md, requests): the answer a subscriber reads.
@Suite struct RequestTests {
    func answer(_ name: String, _ body: String) -> String {
        RequestParsing.responseJSON(name: name, payload: Array(body.utf8))
    }

    @Test func anEmptyBodyOrAnObjectIsARequest() {
        #expect(answer("ping", "") == #"{"ok": true, "data": {}}"#)
        #expect(answer("ping", " {\"id\": \"a-1\", \"extra\": [1, {}]} \n") == #"{"id": "a-1", "ok": true, "data": {}}"#)
        #expect(answer("ping", #"{"id": 7}"#) == #"{"id": 7, "ok": true, "data": {}}"#)
    }

    @Test func malformedJSONIsAnsweredWithWhereReadingStopped() {
        #expect(answer("ping", #"{"id": "1" "x": 2}"#)
                == #"{"ok": false, "error": "the request body is not a JSON object (expected ',' or '}' at byte 11)"}"#)
        #expect(answer("ping", #"{"id": "1",}"#).contains("(expected a member name in quotes at byte 11)"))
        #expect(answer("ping", "[1, 2]") == #"{"ok": false, "error": "the request body is not a JSON object"}"#)
    }
}
