@testable import Proximity
import Testing
import Vocabulary

/// What a rule kind writes of `state` is recorded as tokens: written from them it is the bytes its
/// member tree gives, and two states differ for publishing only where a discrete token does.
@Suite struct StateScriptTests {
    /// Names that are data (escaped), lists and objects inside each other, empty ones, nulls and a
    /// continuous number that is no short decimal.
    func script(progress: Double, phase: String? = "ready", name: String = "hand \"off\"\n") -> StateScript {
        let empty: PayloadKey = "empty", lists: PayloadKey = "lists"
        var script = StateScript()
        script.member(.zones); script.beginList(); script.string("counter"); script.string(nil); script.end()
        script.member(empty); script.beginList(); script.end()
        script.member(.approaches); script.beginObject()
        script.member(name); script.beginObject()
        script.member(.phase); script.string(phase)
        script.member(.progress); script.continuous(progress)
        script.member(lists); script.beginList(); script.beginObject(); script.end(); script.beginList(); script.bool(true); script.end(); script.end()
        script.end()
        script.end()
        script.member(.facing); script.bool(nil)
        return script
    }

    func written(_ script: StateScript) -> String {
        var json = JSONBytes(capacity: 64)
        json.beginObject()
        script.write(into: &json)
        json.endObject()
        return String(decoding: json.takeBytes(), as: UTF8.self)
    }

    @Test func writtenFromItsTokensAStateIsTheBytesOfItsTree() {
        let script = script(progress: 1.0 / 3)
        #expect(written(script) == String(decoding: JSONBytes.object(script.members), as: UTF8.self))
        #expect(written(script) == #"""
            {"zones": ["counter", null], "empty": [], "approaches": {"hand \"off\"\n": {"phase": "ready", "progress": 0.3333333333333333, "lists": [{}, [true]]}}, "facing": null}
            """#)
    }

    @Test func onlyADiscreteTokenMakesAStateWorthPublishing() {
        #expect(script(progress: 0.1).discrete == script(progress: 0.9).discrete)
        #expect(script(progress: 0.1) != script(progress: 0.9))
        #expect(script(progress: 0.1).discrete != script(progress: 0.1, phase: "completed").discrete)
        #expect(script(progress: 0.1).discrete != script(progress: 0.1, phase: nil).discrete)
        #expect(script(progress: 0.1).discrete != script(progress: 0.1, name: "handoff").discrete)
    }
}
