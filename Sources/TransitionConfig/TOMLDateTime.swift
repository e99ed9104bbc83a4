/// A TOML 1.0 date, time or date-time, as written: its fields, checked to
/// be a real date and time (RFC 3339), and which of the four kinds it is.
/// The config's keys take none of them; the reader reads them so that a
/// date given where a number belongs is a schema error at its line.
struct TOMLDateTime: Equatable {
    enum Kind: Equatable {
        /// `1979-05-27T07:32:00Z`, `1979-05-27 00:32:00-07:00`.
        case offsetDateTime
        /// `1979-05-27T07:32:00`.
        case localDateTime
        /// `1979-05-27`.
        case localDate
        /// `07:32:00`.
        case localTime

        var typeName: String {
            switch self {
            case .offsetDateTime: return "a date-time"
            case .localDateTime: return "a local date-time"
            case .localDate: return "a date"
            case .localTime: return "a time"
            }
        }
    }

    var kind: Kind
    var year = 0, month = 0, day = 0
    var hour = 0, minute = 0, second = 0
    /// The fraction of a second as written (`"999999"` for `.999999`), empty when none.
    var fraction = ""
    /// The offset from UTC in minutes (`Z`: 0), for an offset date-time.
    var offsetMinutes: Int?

    // MARK: Reading

    /// What `read` found.
    enum Scan: Equatable {
        /// The bytes do not start like a date (`1979-`) or a time (`07:`).
        case notADateTime
        /// They start like one but are not one (a 13th month, a missing second).
        case invalid
        /// A value, and the index after it.
        case value(TOMLDateTime, end: Int)
    }

    /// Reads a date, a time or a date-time from `bytes` at `start`.
    static func read(_ bytes: [UInt8], at start: Int) -> Scan {
        var index = start
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for k in index..<(index + count) {
                let byte = bytes[k]
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func readTime(into value: inout TOMLDateTime) -> Bool {
            guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2), take(UInt8(ascii: ":")),
                  let second = digits(2) else { return false }
            value.hour = hour
            value.minute = minute
            value.second = second
            if take(UInt8(ascii: ".")) {
                let fractionStart = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") { index += 1 }
                guard index > fractionStart else { return false }
                value.fraction = String(decoding: bytes[fractionStart..<index], as: UTF8.self)
            }
            return true
        }

        func allDigits(_ count: Int) -> Bool {
            start + count <= bytes.count
                && bytes[start..<(start + count)].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        // A local time: HH:MM:SS
        if allDigits(2), start + 2 < bytes.count, bytes[start + 2] == UInt8(ascii: ":") {
            var value = TOMLDateTime(kind: .localTime)
            guard readTime(into: &value) else { return .invalid }
            return value.isValid ? .value(value, end: index) : .invalid
        }
        // A date: YYYY-MM-DD
        guard allDigits(4), start + 4 < bytes.count, bytes[start + 4] == UInt8(ascii: "-") else { return .notADateTime }
        var value = TOMLDateTime(kind: .localDate)
        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")),
              let day = digits(2) else { return .invalid }
        value.year = year
        value.month = month
        value.day = day
        // Then the time, after T, t or a space followed by a time.
        let separator = index < bytes.count ? bytes[index] : 0
        let timeFollows = index + 3 < bytes.count && bytes[index + 3] == UInt8(ascii: ":")
        if separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
            || (separator == UInt8(ascii: " ") && timeFollows) {
            index += 1
            value.kind = .localDateTime
            guard readTime(into: &value) else { return .invalid }
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
                value.kind = .offsetDateTime
                value.offsetMinutes = 0
            } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = digits(2), take(UInt8(ascii: ":")), let minutes = digits(2),
                      hours <= 23, minutes <= 59 else { return .invalid }
                value.kind = .offsetDateTime
                value.offsetMinutes = sign * (hours * 60 + minutes)
            }
        }
        return value.isValid ? .value(value, end: index) : .invalid
    }

    // MARK: Checking

    /// A real date (leap years counted) and time (a leap second allowed).
    var isValid: Bool {
        if kind != .localTime {
            guard (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, year: year) else { return false }
        }
        if kind != .localDate {
            guard hour <= 23, minute <= 59, second <= 60 else { return false }
        }
        return true
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// RFC 3339 text: `1979-05-27T07:32:00.5+01:00` (the fraction as
    /// written; `Z` as `+00:00`).
    var text: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        func four(_ n: Int) -> String { String(repeating: "0", count: max(0, 4 - String(n).count)) + String(n) }
        let date = "\(four(year))-\(two(month))-\(two(day))"
        var time = "\(two(hour)):\(two(minute)):\(two(second))"
        if !fraction.isEmpty { time += "." + fraction }
        switch kind {
        case .localDate: return date
        case .localTime: return time
        case .localDateTime: return date + "T" + time
        case .offsetDateTime:
            let offset = offsetMinutes ?? 0
            let sign = offset < 0 ? "-" : "+"
            return date + "T" + time + sign + two(abs(offset) / 60) + ":" + two(abs(offset) % 60)
        }
    }
}
