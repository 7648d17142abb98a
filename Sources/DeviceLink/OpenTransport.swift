/// Opens the transport a `device.port` value names (cli-and-config.md):
///
/// * `tcp://host:port` → `TCPTransport`;
/// * a path that resolves (through symlinks) to `/dev/pts/N` → `TerminalTransport`, since
///   libserialport 0.1.1 cannot open a pseudo-terminal;
/// * any other path → `SerialPortTransport` through libserialport.
///
/// `auto` is not opened here: the session takes `autoCandidates()` and confirms each with
/// CORE_GET_DEVICE_INFO, because the DWM3001C's CLI firmware has the same USB id as the UCI one.
public func openTransport(port: String, options: TransportOptions = TransportOptions()) throws(TransportError) -> any ByteTransport {
    let trimmed = port.trimmingWhitespace
    if trimmed.lowercased() == "auto" {
        throw .invalidAddress("auto is resolved by port discovery (autoCandidates()), not opened directly")
    }
    if trimmed.lowercased().hasPrefix("tcp:") {
        return try TCPTransport(address: TCPAddress(parsing: trimmed), options: options)
    }
    // A scheme ends at the first colon (and this is not `contains("://")`, whose string search
    // would map most of a megabyte of _StringProcessing into every agent).
    if let colon = trimmed.firstIndex(of: ":"), trimmed[colon...].hasPrefix("://") {
        throw .invalidAddress("\(trimmed): unsupported scheme (use auto, a device path or tcp://host:port)")
    }
    let resolved = try resolveDevicePath(trimmed)
    if isPseudoTerminalSlave(resolved) {
        return try TerminalTransport(path: trimmed, options: options)
    }
    return try SerialPortTransport(path: trimmed, options: options)
}

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
