use super::*;

fn show(layout: &str, value: &str) -> String {
    match parse(layout, value) {
        Ok(t) => t.to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn rfc3339_takes_offsets_fractions_and_one_digit_hours() {
    for ok in [
        "2024-02-29T23:59:59Z",
        "2024-01-01T00:00:00.123+01:00",
        "2024-01-01T00:00:00,5Z",
        "2024-01-01T1:00:00-24:00",
    ] {
        assert!(parse(RFC3339, ok).is_ok(), "{ok}");
    }
    assert_eq!(
        show(RFC3339, "2024-01-01T00:00:00.123+01:00"),
        "2024-01-01 00:00:00.123 +0100 +0100"
    );
    assert_eq!(
        show(RFC3339, "2024-01-01T00:00:00+00:00"),
        "2024-01-01 00:00:00 +0000 UTC"
    );
}

#[test]
fn error_texts_are_time_parse_errors() {
    let cases = [
        (
            "yesterday",
            r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#,
        ),
        (
            "2024-01-01",
            r#"parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T""#,
        ),
        (
            "2024-13-01T00:00:00Z",
            r#"parsing time "2024-13-01T00:00:00Z": month out of range"#,
        ),
        (
            "2023-02-29T00:00:00Z",
            r#"parsing time "2023-02-29T00:00:00Z": day out of range"#,
        ),
        (
            "2024-01-01T00:00:00Zjunk",
            r#"parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk""#,
        ),
        (
            "2024-01-01T00:00:00+0100",
            r#"parsing time "2024-01-01T00:00:00+0100" as "2006-01-02T15:04:05Z07:00": cannot parse "+0100" as "Z07:00""#,
        ),
        (
            "2024-01-01T24:00:00Z",
            r#"parsing time "2024-01-01T24:00:00Z": hour out of range"#,
        ),
        (
            "2024-1-01T00:00:00Z",
            r#"parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01""#,
        ),
        (
            "é",
            r#"parsing time "\xc3\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\xc3\xa9" as "2006""#,
        ),
        (
            "2024-01-01T00:00:00+25:00",
            r#"parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range"#,
        ),
        (
            "2024-01-01T00:00:00+25:x0",
            r#"parsing time "2024-01-01T00:00:00+25:x0": time zone offset hour out of range"#,
        ),
        (
            "2024-01-01T00:00:00*01:00",
            r#"parsing time "2024-01-01T00:00:00*01:00" as "2006-01-02T15:04:05Z07:00": cannot parse "*01:00" as "Z07:00""#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(show(RFC3339, input), want, "{input}");
    }
}

#[test]
fn other_layouts() {
    assert_eq!(
        show(DATE_ONLY, "2023-01-02"),
        "2023-01-02 00:00:00 +0000 UTC"
    );
    assert_eq!(
        show(DATE_ONLY, "2023-02-30"),
        r#"parsing time "2023-02-30": day out of range"#
    );
    assert_eq!(
        show(ANSIC, "Mon Jan  2 15:04:05 2006"),
        "2006-01-02 15:04:05 +0000 UTC"
    );
    assert_eq!(
        show(UNIX_DATE, "Mon Jan 2 15:04:05 MST 2006"),
        "2006-01-02 15:04:05 +0000 MST"
    );
    // An unknown abbreviation keeps the wall clock as UTC's; GMT+h takes its hours.
    assert_eq!(
        show(UNIX_DATE, "Mon Jan 2 15:04:05 GMT+3 2006"),
        "2006-01-02 18:04:05 +0300 GMT+3"
    );
    assert_eq!(
        show(RUBY_DATE, "Mon Jan 02 15:04:05 -0700 2006"),
        "2006-01-02 15:04:05 -0700 -0700"
    );
    assert_eq!(show(KITCHEN, "3:04PM"), "0000-01-01 15:04:00 +0000 UTC");
    assert_eq!(show(KITCHEN, "12:04AM"), "0000-01-01 00:04:00 +0000 UTC");
    assert_eq!(
        show(RFC822, "02 Jan 69 15:04 UTC"),
        "1969-01-02 15:04:00 +0000 UTC"
    );
    assert_eq!(
        show(RFC822, "02 Jan 68 15:04 UTC"),
        "2068-01-02 15:04:00 +0000 UTC"
    );
    assert_eq!(
        show(RFC850, "Monday, 02-Jan-06 15:04:05 PST"),
        "2006-01-02 15:04:05 +0000 PST"
    );
    assert_eq!(
        show(RFC3339_NANO, "2006-01-02T15:04:05.1234567891Z"),
        "2006-01-02 15:04:05.123456789 +0000 UTC"
    );
    assert_eq!(
        show("2006-01-02 15:04:05.000", "2006-01-02 15:04:05.12"),
        r#"parsing time "2006-01-02 15:04:05.12" as "2006-01-02 15:04:05.000": cannot parse ".12" as ".000""#
    );
    assert_eq!(
        show("2006 002", "2024 060"),
        "2024-02-29 00:00:00 +0000 UTC"
    );
    assert_eq!(
        show("2006 __2 01", "2023 060 02"),
        r#"parsing time "2023 060 02": day-of-year does not match month"#
    );
    assert_eq!(
        show("January 2 2006", "FEBRUARY 3 2020"),
        "2020-02-03 00:00:00 +0000 UTC"
    );
    assert_eq!(
        show("2006-01-02T15Z0700", "2023-01-02T03Z"),
        "2023-01-02 03:00:00 +0000 UTC"
    );
    assert_eq!(
        show("Mon 2006", "Mox 2006"),
        r#"parsing time "Mox 2006" as "Mon 2006": cannot parse "Mox 2006" as "Mon""#
    );
}

#[test]
fn string_prints_go_time() {
    let t = parse(RFC3339, "1969-12-31T23:59:59.5-01:30").unwrap();
    assert_eq!(t.to_string(), "1969-12-31 23:59:59.5 -0130 -0130");
    assert_eq!(t.unix, 5399);
}

#[test]
fn format_rfc3339_nano_like_go() {
    for (input, want) in [
        (
            "2011-08-18T19:03:37.010+01:00",
            "2011-08-18T19:03:37.01+01:00",
        ),
        ("2011-08-18T19:03:37Z", "2011-08-18T19:03:37Z"),
        ("1969-12-31T23:59:59.5-01:30", "1969-12-31T23:59:59.5-01:30"),
        ("0001-01-01T00:00:00+00:00", "0001-01-01T00:00:00Z"),
        (
            "9999-12-31T23:59:59.999999999Z",
            "9999-12-31T23:59:59.999999999Z",
        ),
    ] {
        let t = parse(RFC3339, input).unwrap();
        assert_eq!(t.format_rfc3339_nano(), want, "{input}");
    }
}
