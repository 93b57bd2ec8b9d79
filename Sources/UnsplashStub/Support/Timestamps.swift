/// Calendar arithmetic done by hand: the stub's timestamps must not depend on the locale,
/// the time zone or formatter availability of the machine it runs on.
enum Timestamps {
    /// `2024-01-08T00:24:28Z`, the form of Unsplash's `created_at`.
    static func iso8601(_ secondsSince1970: Int) -> String {
        let (year, month, day, hour, minute, second, _) = components(secondsSince1970)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }

    /// `Mon, 08 Jan 2024 00:24:28 GMT`, the form of the CDN's `Last-Modified`.
    static func httpDate(_ secondsSince1970: Int) -> String {
        let (year, month, day, hour, minute, second, weekday) = components(secondsSince1970)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[weekday]), \(pad(day, 2)) \(months[month - 1]) \(year) "
            + "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)) GMT"
    }

    /// Seconds since 1970 of a UTC calendar date.
    static func seconds(year: Int, month: Int, day: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return (era * 146_097 + dayOfEra - 719_468) * 86_400
    }

    /// Weekday is 0 for Thursday, the weekday of 1970-01-01.
    private static func components(_ secondsSince1970: Int)
        -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int)
    {
        let days = floorDivide(secondsSince1970, 86_400)
        let secondOfDay = secondsSince1970 - days * 86_400
        // Howard Hinnant's civil_from_days.
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 7) % 7
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60, weekday)
    }

    private static func floorDivide(_ lhs: Int, _ rhs: Int) -> Int {
        lhs >= 0 ? lhs / rhs : (lhs - rhs + 1) / rhs
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
