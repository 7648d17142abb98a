import Vocabulary

/// The coding key this module puts into coding paths for list indices and `superDecoder()`'s `super`.
struct YAMLKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    static let `super` = YAMLKey(stringValue: "super")
}
