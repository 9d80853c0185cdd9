//! `resource.Quantity` (apimachinery `pkg/api/resource`): Go's `ParseQuantity` grammar and
//! error text, nanoscale precision rounded up, exact comparison, the sign, and the canonical
//! `String()` error texts print (`"500m"`, `"1Gi"`). Values are exact decimals
//! `mantissa × 10^exponent`; a binary suffix keeps the binary format for printing. The one
//! parser of quantities: native validation and the CEL quantity library both use it.

use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalSI,
    BinarySI,
    DecimalExponent,
}

#[derive(Debug, Clone, Copy)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
    format: Format,
}

impl Quantity {
    /// `resource.ParseQuantity`; `Err` with Go's `ErrFormatWrong` text.
    pub fn parse(s: &str) -> Result<Quantity, String> {
        let invalid = || {
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'".to_owned()
        };
        let (negative, rest) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let number_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (number, suffix) = rest.split_at(number_len);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
            return Err(invalid());
        }
        let digits = format!("{whole}{fraction}");
        let digits = digits.trim_start_matches('0');
        if digits.len() > 36 {
            return Err(invalid());
        }
        let mut mantissa: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().map_err(|_| invalid())?
        };
        let mut exponent = -(fraction.len() as i32);
        let mut format = Format::DecimalSI;
        match suffix {
            "" => {}
            "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
                let power = "KMGTPE".find(&suffix[..1]).unwrap_or(0) as u32 + 1;
                mantissa = mantissa
                    .checked_mul(1024i128.pow(power))
                    .ok_or_else(invalid)?;
                format = Format::BinarySI;
            }
            "n" => exponent -= 9,
            "u" => exponent -= 6,
            "m" => exponent -= 3,
            "k" => exponent += 3,
            "M" => exponent += 6,
            "G" => exponent += 9,
            "T" => exponent += 12,
            "P" => exponent += 15,
            "E" => exponent += 18,
            e if e.starts_with(['e', 'E']) => {
                let power: i32 = e[1..].parse().map_err(|_| invalid())?;
                exponent = exponent.checked_add(power).ok_or_else(invalid)?;
                format = Format::DecimalExponent;
            }
            _ => return Err(invalid()),
        }
        if negative {
            mantissa = -mantissa;
        }
        let mut q = Quantity {
            mantissa,
            exponent,
            format,
        };
        q.normalize();
        // ParseQuantity keeps at most nanoscale precision, rounding up (away from zero).
        if q.exponent < -9 {
            let shift = (-9 - q.exponent) as u32;
            let div = 10i128.checked_pow(shift).unwrap_or(i128::MAX);
            let (quot, rem) = (q.mantissa / div, q.mantissa % div);
            q.mantissa = quot + rem.signum();
            q.exponent = -9;
            q.normalize();
        }
        Ok(q)
    }

    /// The value is `mantissa() × 10^exponent()`, normalized: no trailing zeros in the
    /// mantissa, so equal values have equal parts.
    pub fn mantissa(&self) -> i128 {
        self.mantissa
    }

    pub fn exponent(&self) -> i32 {
        self.exponent
    }

    fn normalize(&mut self) {
        if self.mantissa == 0 {
            self.exponent = 0;
            return;
        }
        while self.mantissa % 10 == 0 {
            self.mantissa /= 10;
            self.exponent += 1;
        }
    }

    /// -1, 0 or 1 (`Quantity.Sign`).
    pub fn sign(&self) -> i32 {
        self.mantissa.signum() as i32
    }

    /// `Quantity.Cmp`.
    pub fn compare(&self, other: &Quantity) -> Ordering {
        let e = self.exponent.min(other.exponent);
        let scale = |q: &Quantity| -> Option<i128> {
            q.mantissa
                .checked_mul(10i128.checked_pow(u32::try_from(q.exponent - e).ok()?)?)
        };
        match (scale(self), scale(other)) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => self.approx().total_cmp(&other.approx()),
        }
    }

    fn approx(&self) -> f64 {
        self.mantissa as f64 * 10f64.powi(self.exponent)
    }

    /// Whether the value is a whole number (`MilliValue() % 1000 == 0` for sane values).
    pub fn is_integer(&self) -> bool {
        self.exponent >= 0
    }

    /// The value as an integer when it is one and fits.
    fn integer(&self) -> Option<i128> {
        if self.exponent < 0 {
            return None;
        }
        self.mantissa
            .checked_mul(10i128.checked_pow(self.exponent as u32)?)
    }

    /// `Quantity.String()`: the canonical form in the parsed format.
    pub fn canonical(&self) -> String {
        if self.mantissa == 0 {
            return "0".to_owned();
        }
        if self.format == Format::BinarySI {
            if let Some(mut n) = self.integer() {
                let suffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
                let mut i = 0;
                while i + 1 < suffixes.len() && n % 1024 == 0 && n.abs() >= 1024 {
                    n /= 1024;
                    i += 1;
                }
                return format!("{n}{}", suffixes[i]);
            }
        }
        // Decimal: the largest exponent that is a multiple of 3 and keeps an integer
        // mantissa, within n (10^-9) .. E (10^18).
        let mut e3 = self.exponent.div_euclid(3) * 3;
        e3 = e3.clamp(-9, 18);
        let mantissa = self
            .mantissa
            .checked_mul(
                10i128
                    .checked_pow((self.exponent - e3).max(0) as u32)
                    .unwrap_or(1),
            )
            .unwrap_or(self.mantissa);
        let suffix = if self.format == Format::DecimalExponent {
            if e3 == 0 {
                String::new()
            } else {
                format!("e{e3}")
            }
        } else {
            match e3 {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                0 => "",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                _ => "E",
            }
            .to_owned()
        };
        format!("{mantissa}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::Quantity;
    use std::cmp::Ordering;

    fn canon(s: &str) -> String {
        Quantity::parse(s).unwrap().canonical()
    }

    #[test]
    fn canonical_forms_match_go() {
        assert_eq!(canon("1000m"), "1");
        assert_eq!(canon("0.5"), "500m");
        assert_eq!(canon("1.5k"), "1500");
        assert_eq!(canon("2"), "2");
        assert_eq!(canon("1024Mi"), "1Gi");
        assert_eq!(canon("0.5Gi"), "512Mi");
        assert_eq!(canon("100Mi"), "100Mi");
        assert_eq!(canon("1e3"), "1e3");
        assert_eq!(canon("-1"), "-1");
        assert_eq!(canon("0"), "0");
        assert_eq!(canon("128974848"), "128974848");
        assert_eq!(canon("1G"), "1G");
    }

    #[test]
    fn comparison_is_exact_across_formats() {
        let q = |s| Quantity::parse(s).unwrap();
        assert_eq!(q("1Gi").compare(&q("1G")), Ordering::Greater);
        assert_eq!(q("500m").compare(&q("0.5")), Ordering::Equal);
        assert_eq!(q("2").compare(&q("1")), Ordering::Greater);
        assert!(Quantity::parse("abc").is_err());
        assert!(Quantity::parse("1.2.3").is_err());
    }
}
