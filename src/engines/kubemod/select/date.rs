//! `date(s)`: KubeMod tries a fixed list of Go time layouts with `time.ParseInLocation`
//! in the local time zone. kadmit takes UTC as the local zone (no environment), and
//! prints the result the way Go's `Time.String()` does, which is what comparisons of two
//! dates end up comparing (`<` on two `time.Time` compares their `%v` text).

use kadmit_go::time;

/// A parsed `time.Time`.
pub use kadmit_go::time::Time as GoTime;

/// The layouts of KubeMod's `dateGValFunction`, in its order.
const LAYOUTS: [&str; 14] = [
    time::ANSIC,
    time::UNIX_DATE,
    time::RUBY_DATE,
    time::KITCHEN,
    time::RFC3339,
    time::RFC3339_NANO,
    time::DATE_ONLY,
    "2006-01-02 15:04",
    time::DATE_TIME,
    "2006-01-02 15:04:05-07:00",
    "2006-01-02T15Z0700",
    "2006-01-02T15:04Z0700",
    "2006-01-02T15:04:05Z0700",
    "2006-01-02T15:04:05.999999999Z0700",
];

pub(crate) fn parse_date(s: &str) -> Result<GoTime, String> {
    LAYOUTS
        .iter()
        .find_map(|layout| time::parse(layout, s).ok())
        .ok_or_else(|| format!("date() could not parse {s}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        parse_date(s).map(|t| t.to_string()).unwrap_or_else(|e| e)
    }

    #[test]
    fn parses_the_kubemod_layouts() {
        assert_eq!(show("2023-01-02"), "2023-01-02 00:00:00 +0000 UTC");
        assert_eq!(
            show("2023-01-02T03:04:05Z"),
            "2023-01-02 03:04:05 +0000 UTC"
        );
        assert_eq!(
            show("2023-01-02T03:04:05.25+02:00"),
            "2023-01-02 03:04:05.25 +0200 +0200"
        );
        assert_eq!(show("2023-01-02 03:04:05"), "2023-01-02 03:04:05 +0000 UTC");
        assert_eq!(show("2023-01-02T03Z"), "2023-01-02 03:00:00 +0000 UTC");
        assert_eq!(
            show("Mon Jan  2 15:04:05 2006"),
            "2006-01-02 15:04:05 +0000 UTC"
        );
        assert_eq!(
            show("Mon Jan 2 15:04:05 MST 2006"),
            "2006-01-02 15:04:05 +0000 MST"
        );
        assert_eq!(show("3:04PM"), "0000-01-01 15:04:00 +0000 UTC");
        assert_eq!(show("1969-12-31 23:59"), "1969-12-31 23:59:00 +0000 UTC");
        assert_eq!(show("2023-02-30"), "date() could not parse 2023-02-30");
        assert_eq!(show("yesterday"), "date() could not parse yesterday");
    }
}
