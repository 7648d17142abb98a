/// A measured distance as people read it on site: metres with two decimals (centimetres).
enum Metres {
    static func text(_ metres: Double) -> String {
        guard metres.isFinite else { return "?" }
        let centimetres = Int((abs(metres) * 100).rounded())
        let fraction = centimetres % 100
        return (metres < 0 && centimetres > 0 ? "-" : "") + "\(centimetres / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
