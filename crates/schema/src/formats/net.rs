//! IP, CIDR and MAC address syntax as the `ipv4`, `ipv6`, `cidr` and `mac` formats read
//! them: `ipv4` and `cidr` use `k8s.io/utils/net`'s sloppy parsers (Go 1.16's
//! `net.ParseIP`, which reads leading zeros as decimal), `ipv6` uses today's strict
//! `net.ParseIP` (`netip` rules, no zone), `mac` uses `net.ParseMAC`.

/// Go 1.16's `dtoi`/`xtoi` give up once the value reaches this.
const BIG: u32 = 0xFF_FFFF;

/// `netutils.ParseIPSloppy(s) != nil`.
pub(super) fn parse_ip_sloppy(s: &str) -> bool {
    match s.bytes().find(|&b| b == b'.' || b == b':') {
        Some(b'.') => sloppy_v4(s.as_bytes()),
        Some(_) => sloppy_v6(s.as_bytes()),
        None => false,
    }
}

/// `netutils.ParseCIDRSloppy(s)` succeeds.
pub(super) fn is_cidr_sloppy(s: &str) -> bool {
    let Some((addr, mask)) = s.split_once('/') else {
        return false;
    };
    let bits = if sloppy_v4(addr.as_bytes()) {
        32
    } else if sloppy_v6(addr.as_bytes()) {
        128
    } else {
        return false;
    };
    matches!(decimal(mask.as_bytes()), Some((n, used)) if used == mask.len() && n <= bits)
}

/// Leading decimal digits: value and count, `None` without digits or at `BIG`.
fn decimal(s: &[u8]) -> Option<(u32, usize)> {
    let mut n = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + u32::from(s[i] - b'0');
        if n >= BIG {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

/// Leading hex digits: value and count, `None` without digits or at `BIG`.
fn hex(s: &[u8]) -> Option<(u32, usize)> {
    let mut n = 0;
    let mut i = 0;
    while let Some(d) = s.get(i).and_then(|&b| (b as char).to_digit(16)) {
        n = n * 16 + d;
        if n >= BIG {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

fn sloppy_v4(mut s: &[u8]) -> bool {
    for field in 0..4 {
        if field > 0 {
            match s.split_first() {
                Some((b'.', rest)) => s = rest,
                _ => return false,
            }
        }
        match decimal(s) {
            Some((n, used)) if n <= 0xFF => s = &s[used..],
            _ => return false,
        }
    }
    s.is_empty()
}

fn sloppy_v6(s: &[u8]) -> bool {
    v6_groups(
        s,
        |hex_digits| hex(hex_digits).filter(|&(n, _)| n <= 0xFFFF),
        sloppy_v4,
    )
}

/// The shared IPv6 walk of Go's parsers: hex groups separated by `:`, one `::`, an
/// embedded IPv4 address in the last 32 bits. `group` reads one group; `v4` checks the
/// embedded IPv4 text.
fn v6_groups(
    mut s: &[u8],
    group: impl Fn(&[u8]) -> Option<(u32, usize)>,
    v4: impl Fn(&[u8]) -> bool,
) -> bool {
    let mut ellipsis = false;
    if s.starts_with(b"::") {
        ellipsis = true;
        s = &s[2..];
        if s.is_empty() {
            return true;
        }
    }
    let mut bytes = 0;
    while bytes < 16 {
        let Some((_, used)) = group(s) else {
            return false;
        };
        if s.get(used) == Some(&b'.') {
            if (!ellipsis && bytes != 12) || bytes + 4 > 16 || !v4(s) {
                return false;
            }
            s = &[];
            bytes += 4;
            break;
        }
        bytes += 2;
        s = &s[used..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return false;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis {
                return false;
            }
            ellipsis = true;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    s.is_empty() && (bytes == 16) != ellipsis
}

/// Today's `net.ParseIP(s) != nil`: `netip.ParseAddr` without a zone.
pub(super) fn parse_ip(s: &str) -> bool {
    match s.bytes().find(|&b| matches!(b, b'.' | b':' | b'%')) {
        Some(b'.') => strict_v4(s.as_bytes()),
        Some(b':') if !s.contains('%') => v6_groups(s.as_bytes(), strict_group, strict_v4),
        _ => false,
    }
}

/// One to four hex digits.
fn strict_group(s: &[u8]) -> Option<(u32, usize)> {
    let used = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if used == 0 || used > 4 {
        return None;
    }
    let n = s[..used]
        .iter()
        .fold(0, |n, &b| n * 16 + (b as char).to_digit(16).unwrap_or(0));
    Some((n, used))
}

/// `netip`'s IPv4 fields: four decimal fields up to 255 without leading zeros.
fn strict_v4(s: &[u8]) -> bool {
    let mut fields = 0;
    for field in s.split(|&b| b == b'.') {
        fields += 1;
        let ok = !field.is_empty()
            && field.iter().all(u8::is_ascii_digit)
            && (field.len() == 1 || field[0] != b'0')
            && field.len() <= 3
            && field
                .iter()
                .fold(0u32, |n, &b| n * 10 + u32::from(b - b'0'))
                <= 255;
        if !ok {
            return false;
        }
    }
    fields == 4
}

/// `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx:..`, `xx-xx-..` or `xxxx.xxxx.xxxx`.
pub(super) fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    let hex2 = |pair: &[u8]| pair.len() == 2 && pair.iter().all(u8::is_ascii_hexdigit);
    if b[2] == b':' || b[2] == b'-' {
        let sep = b[2];
        (b.len() + 1).is_multiple_of(3)
            && matches!((b.len() + 1) / 3, 6 | 8 | 20)
            && b.chunks(3)
                .all(|c| hex2(&c[..2]) && c.get(2).is_none_or(|&x| x == sep))
    } else if b[4] == b'.' {
        (b.len() + 1).is_multiple_of(5)
            && matches!(2 * (b.len() + 1) / 5, 6 | 8 | 20)
            && b.chunks(5)
                .all(|c| hex2(&c[..2]) && hex2(&c[2..4]) && c.get(4).is_none_or(|&x| x == b'.'))
    } else {
        false
    }
}
