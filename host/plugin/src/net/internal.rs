//! Which addresses are internal: the ones a plugin must not reach by a public-looking
//! name (loopback, private, link-local and cloud metadata, shared, reserved).
//!
//! An IPv6 address that carries an IPv4 one is judged by the IPv4 address it carries,
//! in every form that reaches it: IPv4-mapped (`::ffff:127.0.0.1`), IPv4-compatible
//! (`::127.0.0.1`), SIIT (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4
//! (`2002:AABB:CCDD::/48`) and Teredo (`2001::/32`, server and client). Local-use NAT64
//! (`64:ff9b:1::/48`), unique-local, link-local, site-local, multicast, discard,
//! documentation and benchmarking ranges are internal outright.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is an internal address.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => internal_v6(v6),
    }
}

fn internal_v4(v4: Ipv4Addr) -> bool {
    let o = v4.octets();
    v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || o[0] == 0
        // Shared address space (carrier-grade NAT), 100.64.0.0/10.
        || (o[0] == 100 && (o[1] & 0xc0) == 64)
        // IETF protocol assignments, 192.0.0.0/24; documentation, 192.0.2.0/24,
        // 198.51.100.0/24, 203.0.113.0/24; benchmarking, 198.18.0.0/15.
        || (o[0] == 192 && o[1] == 0 && (o[2] == 0 || o[2] == 2))
        || (o[0] == 198 && (o[1] & 0xfe) == 18)
        || (o[0] == 198 && o[1] == 51 && o[2] == 100)
        || (o[0] == 203 && o[1] == 0 && o[2] == 113)
        // Reserved, 240.0.0.0/4.
        || o[0] >= 240
}

fn internal_v6(v6: Ipv6Addr) -> bool {
    if v6.is_loopback() || v6.is_unspecified() {
        return true;
    }
    if embedded_v4(v6).is_some_and(internal_v4) {
        return true;
    }
    let s = v6.segments();
    v6.is_multicast()
        // Unique local, fc00::/7.
        || (s[0] & 0xfe00) == 0xfc00
        // Link-local, fe80::/10, and the deprecated site-local, fec0::/10.
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        // Local-use NAT64, 64:ff9b:1::/48: translates to whatever the network says.
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1)
        // Discard, 100::/64.
        || (s[0] == 0x100 && s[1] == 0 && s[2] == 0 && s[3] == 0)
        // Documentation, 2001:db8::/32; benchmarking, 2001:2::/48.
        || (s[0] == 0x2001 && s[1] == 0xdb8)
        || (s[0] == 0x2001 && s[1] == 2 && s[2] == 0)
        // The rest of the IPv4-compatible range, ::/96, carries no public address.
        || (s[..6] == [0; 6])
}

/// The IPv4 address `v6` carries, in the forms that route to it (see the module
/// documentation); for Teredo, the client's address when it is internal, else the
/// server's.
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let low = |a: u16, b: u16| Ipv4Addr::new((a >> 8) as u8, a as u8, (b >> 8) as u8, b as u8);
    match s {
        // IPv4-mapped, ::ffff:0:0/96, and IPv4-compatible, ::/96.
        [0, 0, 0, 0, 0, 0xffff, a, b] | [0, 0, 0, 0, 0, 0, a, b] => Some(low(a, b)),
        // SIIT, ::ffff:0:0:0/96.
        [0, 0, 0, 0, 0xffff, 0, a, b] => Some(low(a, b)),
        // NAT64 well-known prefix, 64:ff9b::/96.
        [0x64, 0xff9b, 0, 0, 0, 0, a, b] => Some(low(a, b)),
        // 6to4, 2002::/16: the IPv4 address follows the prefix.
        [0x2002, a, b, ..] => Some(low(a, b)),
        // Teredo, 2001::/32: the server, then the client with its bits inverted.
        [0x2001, 0, sa, sb, _, _, ca, cb] => {
            let client = low(!ca, !cb);
            if internal_v4(client) {
                Some(client)
            } else {
                Some(low(sa, sb))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_in_every_form() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fd00::1",
            "fc00::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::10.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::8.8.8.8",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001:db8::1",
        ] {
            assert!(is_internal(ip.parse().expect("ip")), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
        ] {
            assert!(!is_internal(ip.parse().expect("ip")), "{ip}");
        }
    }
}
