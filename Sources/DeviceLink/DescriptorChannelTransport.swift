/// A transport whose bytes go through one `DescriptorChannel`: the serial port, the terminal, the
/// pseudo-terminal's master and the TCP socket differ only in how they open their descriptor, so
/// reading, writing and closing are written here once. A transport that must do more on close
/// (the pseudo-terminal removes its links) declares its own `close()`.
protocol DescriptorChannelTransport: ByteTransport {
    var channel: DescriptorChannel { get }
}

extension DescriptorChannelTransport {
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        try channel.write(bytes)
    }

    public func read(maximum: Int, timeout: Duration) throws(TransportError) -> [UInt8] {
        try channel.read(maximum: maximum, timeout: timeout)
    }

    public var fileDescriptor: Int32 { channel.fileDescriptor }

    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer, revents: Int16) throws(TransportError) -> Int {
        try channel.readAvailable(into: buffer, revents: revents)
    }

    public func close() {
        channel.close()
    }
}
