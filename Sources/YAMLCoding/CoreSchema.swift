import Vocabulary

/// The YAML 1.2 core schema: which plain scalars are null, booleans, integers or floats.
///
/// Deliberately *not* YAML 1.1: `yes`, `no`, `on`, `off` are text, and `0x0001` is an integer only when an
/// integer is asked for (decoding a `String` from it gives the text back, which is what the config's
/// `address` fields need). Quoted and block scalars are always text unless explicitly tagged.
enum CoreSchema {
    /// What a scalar is under the core schema.
    enum Resolved: Equatable {
        case null
        case bool(Bool)
        case int
        case float
        case string
    }

    static let strTag = "tag:yaml.org,2002:str"
    static let nullTag = "tag:yaml.org,2002:null"
    static let boolTag = "tag:yaml.org,2002:bool"
    static let intTag = "tag:yaml.org,2002:int"
    static let floatTag = "tag:yaml.org,2002:float"

    static func resolve(_ scalar: YAMLScalar, tag: String?) -> Resolved {
        switch tag {
        case strTag?, "!"?: return .string
        case nullTag?: return .null
        case boolTag?: return bool(scalar.text).map(Resolved.bool) ?? .string
        case intTag?: return isInteger(scalar.text) ? .int : .string
        case floatTag?: return isFloat(scalar.text) || isInteger(scalar.text) ? .float : .string
        default: break
        }
        guard scalar.style == .plain else { return .string }
        let text = scalar.text
        if isNull(text) { return .null }
        if let b = bool(text) { return .bool(b) }
        if isInteger(text) { return .int }
        if isFloat(text) { return .float }
        return .string
    }

    static func isNull(_ text: String) -> Bool {
        text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// Splits an integer literal into sign, radix and digits: `[-+]?` then `0x` hex, `0o` octal or decimal.
    /// Returns nil when the text is not an integer literal at all.
    private static func integerParts(_ text: String) -> (negative: Bool, radix: Int, digits: Substring)? {
        var rest = Substring(text)
        var negative = false
        if let first = rest.first, first == "-" || first == "+" {
            negative = first == "-"
            rest = rest.dropFirst()
        }
        var radix = 10
        if rest.hasPrefix("0x") {
            radix = 16
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix("0o") {
            radix = 8
            rest = rest.dropFirst(2)
        }
        guard !rest.isEmpty else { return nil }
        let ok: Bool
        switch radix {
        case 16: ok = rest.allSatisfy(\.isHexDigit)
        case 8: ok = rest.allSatisfy { ("0"..."7").contains($0) }
        default: ok = rest.allSatisfy { ("0"..."9").contains($0) }
        }
        return ok ? (negative, radix, rest) : nil
    }

    static func isInteger(_ text: String) -> Bool { integerParts(text) != nil }

    /// The outcome of reading an integer literal into a particular integer type.
    enum IntegerResult<T> {
        case value(T)
        case outOfRange
        case notAnInteger
    }

    static func integer<T: FixedWidthInteger>(_ text: String, as: T.Type) -> IntegerResult<T> {
        guard let parts = integerParts(text) else { return .notAnInteger }
        // FixedWidthInteger's parser takes a sign and returns nil only on overflow here, because the
        // digits were checked above; "-0" into an unsigned type is 0, which is fine.
        let signed = (parts.negative ? "-" : "") + parts.digits
        guard let value = T(signed, radix: parts.radix) else { return .outOfRange }
        return .value(value)
    }

    /// `[-+]? ( . digits | digits [ . digits* ] ) ( [eE] [-+]? digits )?`, or `.inf`/`.nan` spellings.
    static func isFloat(_ text: String) -> Bool {
        if specialFloat(text) != nil { return true }
        var chars = Substring(text)
        if let f = chars.first, f == "-" || f == "+" { chars = chars.dropFirst() }
        let isDigit: (Character) -> Bool = { ("0"..."9").contains($0) }
        let intDigits = chars.prefix(while: isDigit)
        chars = chars.dropFirst(intDigits.count)
        var fracDigits = Substring()
        var hasDot = false
        if chars.first == "." {
            hasDot = true
            chars = chars.dropFirst()
            fracDigits = chars.prefix(while: isDigit)
            chars = chars.dropFirst(fracDigits.count)
        }
        if intDigits.isEmpty && fracDigits.isEmpty { return false }
        if intDigits.isEmpty && !hasDot { return false }
        if let e = chars.first, e == "e" || e == "E" {
            chars = chars.dropFirst()
            if let s = chars.first, s == "-" || s == "+" { chars = chars.dropFirst() }
            let expDigits = chars.prefix(while: isDigit)
            if expDigits.isEmpty { return false }
            chars = chars.dropFirst(expDigits.count)
        }
        return chars.isEmpty
    }

    private static func specialFloat(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: return nil
        }
    }

    /// The value of a float or integer literal as a Double, or nil when the text is neither.
    static func double(_ text: String) -> Double? {
        if let special = specialFloat(text) { return special }
        if isFloat(text) { return Double(text) }
        if let parts = integerParts(text) {
            if parts.radix == 10 { return Double(text) }
            // Hex and octal: read as a wide integer first; beyond 64 bits fall back to digit folding.
            if let magnitude = UInt64(parts.digits, radix: parts.radix) {
                let d = Double(magnitude)
                return parts.negative ? -d : d
            }
            var d = 0.0
            for c in parts.digits { d = d * Double(parts.radix) + Double(c.hexDigitValue ?? 0) }
            return parts.negative ? -d : d
        }
        return nil
    }
}
