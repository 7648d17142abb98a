// libFuzzer entry for the configuration loader: any bytes decode to a configuration or to a
// SourceError / ConfigurationError with a message, never a trap or a hang.
import Foundation
import Gateway
import YAMLCoding
import Vocabulary

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    do {
        let configuration = try YAMLDecoder().decode(AgentConfiguration.self, from: bytes, file: "fuzz.yaml")
        _ = configuration.device.session.appConfiguration.map(\.tlv)
        _ = configuration.topics.root
    } catch let error as SourceError {
        if error.description.isEmpty { fatalError("an error without a message") }
    } catch {
        if "\(error)".isEmpty { fatalError("an error without a message") }
    }
    return 0
}
