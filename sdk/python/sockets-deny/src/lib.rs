//! `wasi:sockets`, refused: the only values this component ever hands out are the
//! default `network` handle and `access-denied`. No socket, name-lookup stream or
//! datagram stream can be created, so their methods are unreachable.

#![allow(unused_variables)]

wit_bindgen::generate!({ world: "deny", path: "wit", generate_all });

use exports::wasi::sockets::*;

/// Every resource type: none is ever constructed but the network handle.
struct Stub;

export!(Stub);

impl network::GuestNetwork for Stub {}
impl network::Guest for Stub {
    type Network = Stub;
}
impl instance_network::Guest for Stub {
    fn instance_network() -> instance_network::Network {
        network::Network::new(Stub)
    }
}
impl ip_name_lookup::GuestResolveAddressStream for Stub {
    fn resolve_next_address(
        &self,
    ) -> Result<
        Option<ip_name_lookup::IpAddress>,
        ip_name_lookup::ErrorCode,
    > {
        unreachable!()
    }
    fn subscribe(&self) -> ip_name_lookup::Pollable {
        unreachable!()
    }
}
impl ip_name_lookup::Guest for Stub {
    type ResolveAddressStream = Stub;
    fn resolve_addresses(
        network: ip_name_lookup::NetworkBorrow<'_>,
        name: String,
    ) -> Result<
        ip_name_lookup::ResolveAddressStream,
        ip_name_lookup::ErrorCode,
    > {
        Err(network::ErrorCode::AccessDenied)
    }
}
impl tcp::GuestTcpSocket for Stub {
    fn start_bind(
        &self,
        network: tcp::NetworkBorrow<'_>,
        local_address: tcp::IpSocketAddress,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn finish_bind(
        &self,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn start_connect(
        &self,
        network: tcp::NetworkBorrow<'_>,
        remote_address: tcp::IpSocketAddress,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn finish_connect(
        &self,
    ) -> Result<
        (
            tcp::InputStream,
            tcp::OutputStream,
        ),
        tcp::ErrorCode,
    > {
        unreachable!()
    }
    fn start_listen(
        &self,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn finish_listen(
        &self,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn accept(
        &self,
    ) -> Result<
        (
            tcp::TcpSocket,
            tcp::InputStream,
            tcp::OutputStream,
        ),
        tcp::ErrorCode,
    > {
        unreachable!()
    }
    fn local_address(
        &self,
    ) -> Result<
        tcp::IpSocketAddress,
        tcp::ErrorCode,
    > {
        unreachable!()
    }
    fn remote_address(
        &self,
    ) -> Result<
        tcp::IpSocketAddress,
        tcp::ErrorCode,
    > {
        unreachable!()
    }
    fn is_listening(&self) -> bool {
        unreachable!()
    }
    fn address_family(&self) -> tcp::IpAddressFamily {
        unreachable!()
    }
    fn set_listen_backlog_size(
        &self,
        value: u64,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn keep_alive_enabled(
        &self,
    ) -> Result<bool, tcp::ErrorCode> {
        unreachable!()
    }
    fn set_keep_alive_enabled(
        &self,
        value: bool,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn keep_alive_idle_time(
        &self,
    ) -> Result<
        tcp::Duration,
        tcp::ErrorCode,
    > {
        unreachable!()
    }
    fn set_keep_alive_idle_time(
        &self,
        value: tcp::Duration,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn keep_alive_interval(
        &self,
    ) -> Result<
        tcp::Duration,
        tcp::ErrorCode,
    > {
        unreachable!()
    }
    fn set_keep_alive_interval(
        &self,
        value: tcp::Duration,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn keep_alive_count(
        &self,
    ) -> Result<u32, tcp::ErrorCode> {
        unreachable!()
    }
    fn set_keep_alive_count(
        &self,
        value: u32,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn hop_limit(
        &self,
    ) -> Result<u8, tcp::ErrorCode> {
        unreachable!()
    }
    fn set_hop_limit(
        &self,
        value: u8,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn receive_buffer_size(
        &self,
    ) -> Result<u64, tcp::ErrorCode> {
        unreachable!()
    }
    fn set_receive_buffer_size(
        &self,
        value: u64,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn send_buffer_size(
        &self,
    ) -> Result<u64, tcp::ErrorCode> {
        unreachable!()
    }
    fn set_send_buffer_size(
        &self,
        value: u64,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
    fn subscribe(&self) -> tcp::Pollable {
        unreachable!()
    }
    fn shutdown(
        &self,
        shutdown_type: tcp::ShutdownType,
    ) -> Result<(), tcp::ErrorCode> {
        unreachable!()
    }
}
impl tcp::Guest for Stub {
    type TcpSocket = Stub;
}
impl tcp_create_socket::Guest for Stub {
    fn create_tcp_socket(
        address_family: tcp_create_socket::IpAddressFamily,
    ) -> Result<
        tcp_create_socket::TcpSocket,
        tcp_create_socket::ErrorCode,
    > {
        Err(network::ErrorCode::AccessDenied)
    }
}
impl udp::GuestUdpSocket for Stub {
    fn start_bind(
        &self,
        network: udp::NetworkBorrow<'_>,
        local_address: udp::IpSocketAddress,
    ) -> Result<(), udp::ErrorCode> {
        unreachable!()
    }
    fn finish_bind(
        &self,
    ) -> Result<(), udp::ErrorCode> {
        unreachable!()
    }
    fn stream(
        &self,
        remote_address: Option<
            udp::IpSocketAddress,
        >,
    ) -> Result<
        (
            udp::IncomingDatagramStream,
            udp::OutgoingDatagramStream,
        ),
        udp::ErrorCode,
    > {
        unreachable!()
    }
    fn local_address(
        &self,
    ) -> Result<
        udp::IpSocketAddress,
        udp::ErrorCode,
    > {
        unreachable!()
    }
    fn remote_address(
        &self,
    ) -> Result<
        udp::IpSocketAddress,
        udp::ErrorCode,
    > {
        unreachable!()
    }
    fn address_family(&self) -> udp::IpAddressFamily {
        unreachable!()
    }
    fn unicast_hop_limit(
        &self,
    ) -> Result<u8, udp::ErrorCode> {
        unreachable!()
    }
    fn set_unicast_hop_limit(
        &self,
        value: u8,
    ) -> Result<(), udp::ErrorCode> {
        unreachable!()
    }
    fn receive_buffer_size(
        &self,
    ) -> Result<u64, udp::ErrorCode> {
        unreachable!()
    }
    fn set_receive_buffer_size(
        &self,
        value: u64,
    ) -> Result<(), udp::ErrorCode> {
        unreachable!()
    }
    fn send_buffer_size(
        &self,
    ) -> Result<u64, udp::ErrorCode> {
        unreachable!()
    }
    fn set_send_buffer_size(
        &self,
        value: u64,
    ) -> Result<(), udp::ErrorCode> {
        unreachable!()
    }
    fn subscribe(&self) -> udp::Pollable {
        unreachable!()
    }
}
impl udp::GuestIncomingDatagramStream for Stub {
    fn receive(
        &self,
        max_results: u64,
    ) -> Result<
        Vec<udp::IncomingDatagram>,
        udp::ErrorCode,
    > {
        unreachable!()
    }
    fn subscribe(&self) -> udp::Pollable {
        unreachable!()
    }
}
impl udp::GuestOutgoingDatagramStream for Stub {
    fn check_send(
        &self,
    ) -> Result<u64, udp::ErrorCode> {
        unreachable!()
    }
    fn send(
        &self,
        datagrams: Vec<udp::OutgoingDatagram>,
    ) -> Result<u64, udp::ErrorCode> {
        unreachable!()
    }
    fn subscribe(&self) -> udp::Pollable {
        unreachable!()
    }
}
impl udp::Guest for Stub {
    type UdpSocket = Stub;
    type IncomingDatagramStream = Stub;
    type OutgoingDatagramStream = Stub;
}
impl udp_create_socket::Guest for Stub {
    fn create_udp_socket(
        address_family: udp_create_socket::IpAddressFamily,
    ) -> Result<
        udp_create_socket::UdpSocket,
        udp_create_socket::ErrorCode,
    > {
        Err(network::ErrorCode::AccessDenied)
    }
}