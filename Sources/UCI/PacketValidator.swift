/// Judges whether the bytes framed as one packet can be the message their header names.
///
/// The reassembler frames packets by their headers alone, and a stray byte can make a false
/// header whose length reaches over the next real packet. Framing cannot tell the two apart;
/// meaning can: a false header rarely names a message the codec knows with a payload that fits
/// that message's layout, while the real packet it swallowed does. The reassembler asks a
/// validator for that judgement and stays a framing layer; `PacketValidator.codec` answers with
/// the typed decoders of this module.
public struct PacketValidator: Sendable {
    /// What the bytes framed as one packet are, as far as the validator can tell.
    public enum Verdict: Hashable, Sendable {
        /// A message the validator knows, and the bytes fit its layout (so far, when the packet
        /// has not fully arrived).
        case valid
        /// A message the validator knows, and the bytes cannot be it.
        case invalid
        /// The validator cannot tell: a message it does not know, or one whose layout it does
        /// not check.
        case unknown
    }

    /// The codec and "framing only" are called directly (the reassembler asks about every
    /// packet, so an indirect call would show in the stream benchmark); others via their closure.
    private enum Judge: Sendable {
        case codec
        case framingOnly
        case custom(@Sendable (PacketHeader, ArraySlice<UInt8>) -> Verdict)
    }

    private let judge: Judge

    /// `judge` gets the header and the payload bytes that have arrived: all of them when
    /// `payload.count == header.payloadLength`, a prefix otherwise. It is never asked about a
    /// segment of a longer message (PBF), which cannot be judged on its own.
    ///
    /// Its verdict on a prefix must not be stricter than on the whole: when a prefix is not
    /// `.valid`, no completion of it may be, or the reassembler's decisions would depend on how
    /// the stream is chunked.
    public init(_ judge: @escaping @Sendable (_ header: PacketHeader, _ payload: ArraySlice<UInt8>) -> Verdict) {
        self.judge = .custom(judge)
    }

    private init(_ judge: Judge) {
        self.judge = judge
    }

    @inline(__always)
    public func verdict(_ header: PacketHeader, payload: ArraySlice<UInt8>) -> Verdict {
        switch judge {
        case .codec: CodecVerdict.verdict(header, payload)
        case .framingOnly: .unknown
        case let .custom(judge): judge(header, payload)
        }
    }

    /// Knows nothing: every packet is `.unknown`, and the reassembler frames by headers alone.
    public static let framingOnly = PacketValidator(Judge.framingOnly)

    /// The typed decoders of this module; see `CodecVerdict`.
    static let codecJudge = PacketValidator(Judge.codec)
}
