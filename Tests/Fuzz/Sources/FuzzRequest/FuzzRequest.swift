// libFuzzer entry for request handling on the agent's core: the first line is the request name
// (from the topic), the rest the body. Every input gets a JSON response (none only for a name over
// the length limit, which is dropped), never a trap.
import Gateway

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let split = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let name = String(decoding: bytes[..<split], as: UTF8.self)
    let body = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    let response = RequestParsing.responseJSON(name: name, payload: body)
    if response.isEmpty && name.count <= 64 { fatalError("no answer to \(name)") }
    if !response.isEmpty && !response.hasPrefix("{") { fatalError("not a JSON object: \(response)") }
    return 0
}
