//! Kubernetes' `library.IP` and `library.CIDR` (types `net.IP`, `net.CIDR`): no leading
//! zeros, no zones, no IPv4-mapped IPv6 addresses.

use super::{out, str_arg, Out};
use cel::common::types::{Type, STRING_TYPE};
use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::net::IpAddr;
use std::sync::Arc;

const IP_TYPE: &str = "net.IP";
const CIDR_TYPE: &str = "net.CIDR";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ip(IpAddr);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Opaque for Ip {
    fn runtime_type_name(&self) -> &str {
        IP_TYPE
    }
}

impl Opaque for Cidr {
    fn runtime_type_name(&self) -> &str {
        CIDR_TYPE
    }
}

use super::Overload;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let ip = || Type::new_opaque_type(IP_TYPE);
    let cidr = || Type::new_opaque_type(CIDR_TYPE);
    env.add_type(ip())?;
    env.add_type(cidr())?;
    env.add_overload("ip", "string_to_ip", vec![STRING_TYPE], to_ip)?;
    env.add_overload("isIP", "is_ip", vec![STRING_TYPE], is_ip)?;
    env.add_overload(
        "ip.isCanonical",
        "ip_is_canonical",
        vec![STRING_TYPE],
        is_canonical,
    )?;
    env.add_overload("cidr", "string_to_cidr", vec![STRING_TYPE], to_cidr)?;
    env.add_overload("isCIDR", "is_cidr", vec![STRING_TYPE], is_cidr)?;
    env.add_overload("string", "ip_to_string", vec![ip()], ip_string)?;
    env.add_overload("string", "cidr_to_string", vec![cidr()], cidr_string)?;
    let ip_members: [(&str, Overload); 6] = [
        ("family", family),
        ("isUnspecified", is_unspecified),
        ("isLoopback", is_loopback),
        ("isLinkLocalMulticast", is_link_local_multicast),
        ("isLinkLocalUnicast", is_link_local_unicast),
        ("isGlobalUnicast", is_global_unicast),
    ];
    for (name, f) in ip_members {
        env.add_member_overload(name, &format!("ip_{name}"), ip(), vec![], f)?;
    }
    env.add_member_overload(
        "containsIP",
        "cidr_contains_ip",
        cidr(),
        vec![ip()],
        contains_ip,
    )?;
    env.add_member_overload(
        "containsIP",
        "cidr_contains_ip_string",
        cidr(),
        vec![STRING_TYPE],
        contains_ip,
    )?;
    env.add_member_overload(
        "containsCIDR",
        "cidr_contains_cidr",
        cidr(),
        vec![cidr()],
        contains_cidr,
    )?;
    env.add_member_overload(
        "containsCIDR",
        "cidr_contains_cidr_string",
        cidr(),
        vec![STRING_TYPE],
        contains_cidr,
    )?;
    env.add_member_overload("ip", "cidr_ip", cidr(), vec![], cidr_ip)?;
    env.add_member_overload("masked", "cidr_masked", cidr(), vec![], masked)?;
    env.add_member_overload(
        "prefixLength",
        "cidr_prefix_length",
        cidr(),
        vec![],
        prefix_length,
    )?;
    Ok(())
}

/// An address as Kubernetes accepts it.
pub fn parse_ip(s: &str) -> Result<IpAddr, String> {
    let addr: IpAddr = s
        .parse()
        .map_err(|_| format!("IP Address {s:?} parse error during conversion from string"))?;
    if let IpAddr::V6(v6) = addr {
        if v6.to_ipv4_mapped().is_some() {
            return Err(format!("IPv4-mapped IPv6 address {s:?} is not allowed"));
        }
    }
    Ok(addr)
}

/// A prefix as Kubernetes accepts it (host bits may be set).
pub fn parse_cidr(s: &str) -> Result<Cidr, String> {
    let fail = || format!("network address {s:?} parse error during conversion from string");
    let (addr, prefix) = s.split_once('/').ok_or_else(fail)?;
    let addr = parse_ip(addr).map_err(|_| fail())?;
    let digits_ok = !prefix.is_empty()
        && prefix.bytes().all(|b| b.is_ascii_digit())
        && !(prefix.len() > 1 && prefix.starts_with('0'));
    let prefix: u8 = prefix.parse().ok().filter(|_| digits_ok).ok_or_else(fail)?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if prefix > max {
        return Err(fail());
    }
    Ok(Cidr { addr, prefix })
}

fn bits(addr: IpAddr) -> (u128, u8) {
    match addr {
        IpAddr::V4(v4) => (u32::from(v4) as u128, 32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    }
}

fn mask(addr: IpAddr, prefix: u8) -> IpAddr {
    let (value, width) = bits(addr);
    let host = width - prefix;
    let masked = if host >= 128 {
        0
    } else {
        value >> host << host
    };
    match addr {
        IpAddr::V4(_) => IpAddr::V4((masked as u32).into()),
        IpAddr::V6(_) => IpAddr::V6(masked.into()),
    }
}

impl Cidr {
    fn contains(&self, addr: IpAddr) -> bool {
        addr.is_ipv4() == self.addr.is_ipv4()
            && mask(addr, self.prefix) == mask(self.addr, self.prefix)
    }
}

fn opaque<T: Clone + 'static>(args: &[CowVal<'_, '_>], i: usize) -> Option<T> {
    match args.get(i).map(|a| Value::try_from(a.as_ref())) {
        Some(Ok(Value::Opaque(o))) => o.downcast_ref::<T>().cloned(),
        _ => None,
    }
}

fn ip_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<IpAddr, ExecutionError> {
    match opaque::<Ip>(args, i) {
        Some(ip) => Ok(ip.0),
        None => parse_ip(str_arg(args, i)?).map_err(|e| ExecutionError::function_error("ip", e)),
    }
}

fn cidr_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<Cidr, ExecutionError> {
    match opaque::<Cidr>(args, i) {
        Some(c) => Ok(c),
        None => {
            parse_cidr(str_arg(args, i)?).map_err(|e| ExecutionError::function_error("cidr", e))
        }
    }
}

fn boolean<'b, 'v>(b: bool) -> Out<'b, 'v> {
    out(Value::Bool(b))
}

fn to_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Opaque(Arc::new(Ip(ip_arg(&args, 0)?))))
}

fn is_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(parse_ip(str_arg(&args, 0)?).is_ok())
}

fn is_canonical<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let s = str_arg(&args, 0)?;
    let addr = parse_ip(s).map_err(|e| ExecutionError::function_error("ip.isCanonical", e))?;
    boolean(addr.to_string() == s)
}

fn to_cidr<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Opaque(Arc::new(cidr_arg(&args, 0)?)))
}

fn is_cidr<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(parse_cidr(str_arg(&args, 0)?).is_ok())
}

fn ip_string<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::String(Arc::new(ip_arg(&args, 0)?.to_string())))
}

fn cidr_string<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let c = cidr_arg(&args, 0)?;
    out(Value::String(Arc::new(format!("{}/{}", c.addr, c.prefix))))
}

fn family<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Int(if ip_arg(&args, 0)?.is_ipv4() { 4 } else { 6 }))
}

fn is_unspecified<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(ip_arg(&args, 0)?.is_unspecified())
}

fn is_loopback<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(ip_arg(&args, 0)?.is_loopback())
}

fn link_local_multicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => v6.segments()[0] & 0xff0f == 0xff02,
    }
}

fn link_local_unicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => v4.octets()[..2] == [169, 254],
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn is_link_local_multicast<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(link_local_multicast(ip_arg(&args, 0)?))
}

fn is_link_local_unicast<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(link_local_unicast(ip_arg(&args, 0)?))
}

/// Go's `IP.IsGlobalUnicast`.
fn is_global_unicast<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let addr = ip_arg(&args, 0)?;
    let broadcast = matches!(addr, IpAddr::V4(v4) if v4.is_broadcast());
    boolean(
        !broadcast
            && !addr.is_unspecified()
            && !addr.is_loopback()
            && !addr.is_multicast()
            && !link_local_unicast(addr),
    )
}

fn contains_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(cidr_arg(&args, 0)?.contains(ip_arg(&args, 1)?))
}

fn contains_cidr<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let (outer, inner) = (cidr_arg(&args, 0)?, cidr_arg(&args, 1)?);
    boolean(inner.prefix >= outer.prefix && outer.contains(inner.addr))
}

fn cidr_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Opaque(Arc::new(Ip(cidr_arg(&args, 0)?.addr))))
}

fn masked<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let c = cidr_arg(&args, 0)?;
    out(Value::Opaque(Arc::new(Cidr {
        addr: mask(c.addr, c.prefix),
        prefix: c.prefix,
    })))
}

fn prefix_length<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Int(i64::from(cidr_arg(&args, 0)?.prefix)))
}
