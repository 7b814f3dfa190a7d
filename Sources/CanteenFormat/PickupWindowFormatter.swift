import CanteenCore
import Foundation

/// Renders pickup windows (`1:45 – 3:00 AM`) as wall-clock times in the café's time zone, in
/// the reader's locale, caching one interval style per (locale, time zone) and the labels
/// themselves: every order and kitchen ticket of a window shows the same one.
///
/// The calendar is Gregorian in the café's zone and the locale is always passed in: neither
/// `Locale.current` nor `TimeZone.current` is ever read. Instants are converted to wall-clock
/// time by ICU, so a window across a DST change shows its real local ends (`1:45 – 3:00 AM` on
/// a spring-forward night is 15 minutes). A window across a fall-back change is ambiguous as
/// wall-clock times: ICU's interval would collapse (`1:30 – 1:30`), run backwards
/// (`1:45 – 1:15`) or look shorter than it is (`1:00 – 1:30` for 90 minutes); there each end is
/// shown with its zone (`1:30 AM CDT – 1:30 AM CST`).
public final class PickupWindowFormatter: Sendable {
    private let styles: BoundedCache<StyleKey, WindowStyles>
    private let labels: BoundedCache<LabelKey, String>

    /// A formatter whose caches hold at most `cacheCapacity` (locale, time zone) pairs and
    /// `labelCapacity` labels.
    public init(cacheCapacity: Int = 1024, labelCapacity: Int = 8192) {
        styles = BoundedCache(capacity: cacheCapacity)
        labels = BoundedCache(capacity: labelCapacity)
    }

    // MARK: - Formatting

    /// The window from `start` to `end` as times of day in `timeZone`, in `locale`'s
    /// conventions. A window given backwards is shown from its earlier end.
    public func label(start: Date, end: Date, timeZone: TimeZone, locale: Locale) -> String {
        let key = LabelKey(
            style: StyleKey(locale: locale.identifier, timeZone: timeZone.identifier), start: start, end: end)
        return labels.value(for: key) { render(start: start, end: end, timeZone: timeZone, locale: locale) }
    }

    private func render(start: Date, end: Date, timeZone: TimeZone, locale: Locale) -> String {
        let entry = styles.value(for: StyleKey(locale: locale.identifier, timeZone: timeZone.identifier)) {
            WindowStyles(timeZone: timeZone, locale: locale)
        }
        let (first, last) = (min(start, end), max(start, end))
        let firstOffset = timeZone.secondsFromGMT(for: first)
        let lastOffset = timeZone.secondsFromGMT(for: last)
        if lastOffset < firstOffset {
            // The clocks went back inside the window: wall-clock times alone would mislead.
            return entry.zonedTime.format(first) + WindowStyles.separator + entry.zonedTime.format(last)
        }
        return entry.interval.format(first..<last)
    }

    /// How many (locale, time zone) styles are cached now.
    public var cachedStyleCount: Int { styles.count }

    /// How many labels are cached now.
    public var cachedLabelCount: Int { labels.count }

    /// The styles of one (locale, time zone).
    struct WindowStyles: Sendable {
        /// Placed between two zoned times, as ICU's English interval pattern does.
        static let separator = "\u{2009}\u{2013}\u{2009}"

        let interval: Date.IntervalFormatStyle
        let zonedTime: Date.FormatStyle

        init(timeZone: TimeZone, locale: Locale) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            calendar.locale = locale
            interval = Date.IntervalFormatStyle(
                date: .omitted, time: .shortened, locale: locale, calendar: calendar, timeZone: timeZone)
            zonedTime = Date.FormatStyle(locale: locale, calendar: calendar, timeZone: timeZone)
                .hour().minute().timeZone(.specificName(.short))
        }
    }

    struct StyleKey: Hashable, Sendable {
        var locale: String
        var timeZone: String
    }

    struct LabelKey: Hashable, Sendable {
        var style: StyleKey
        var start: Date
        var end: Date
    }
}
