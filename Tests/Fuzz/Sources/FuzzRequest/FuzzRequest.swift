// libFuzzer entry for request handling on the agent's core: the first line is the request name
// (from the topic), the rest the body. Every input gets a JSON response (none only for a name over
// the length limit, which is dropped), never a trap. A first line `report:<name>` sends the body
// as a phone's report on `phone/<name>/report` instead, to a phone that ranges (`$TOKEN` in the
// body is its session's report_token): it changes the phone's state or nothing, never traps.
import Gateway

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let split = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let name = String(decoding: bytes[..<split], as: UTF8.self)
    let body = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    if name.hasPrefix("report:") {
        let state = RequestParsing.reportOutcome(segment: String(name.dropFirst("report:".count)), payload: body)
        if !state.isEmpty && !state.hasPrefix("{") { fatalError("not a JSON object: \(state)") }
        return 0
    }
    let response = RequestParsing.responseJSON(name: name, payload: body)
    if response.isEmpty && name.count <= 64 { fatalError("no answer to \(name)") }
    if !response.isEmpty && !response.hasPrefix("{") { fatalError("not a JSON object: \(response)") }
    return 0
}
