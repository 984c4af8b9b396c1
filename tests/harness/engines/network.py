"""Tries the network: a TCP connection and a UDP datagram to the port named in port.txt on
127.0.0.1 (the test listens there, outside the sandbox). In the sandbox's own network
namespace nothing listens, the connection is refused, and the engine fails (RE)."""

import contextlib
import os
import socket

HERE = os.path.dirname(os.path.abspath(__file__))


def port():
    with open(os.path.join(HERE, "port.txt")) as handle:
        return int(handle.read())


def phone_home(text):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, contextlib.suppress(OSError):
        udp.sendto(text.encode(), ("127.0.0.1", port()))
    with socket.create_connection(("127.0.0.1", port()), timeout=1) as tcp:
        tcp.sendall(text.encode())


def legal_moves(fen):
    phone_home(fen)
    return []


def search(fen, depth):
    phone_home(fen)
    return {"value": 0, "move": None, "leaves": 0}


def choose_move(fen, time_left):
    phone_home(fen)
    return ""
