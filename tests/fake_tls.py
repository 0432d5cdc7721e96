"""A certificate authority and a server certificate for Discord's names, made once per process.

The fake Discord serves TLS under discord.com, gateway.discord.gg and 127.0.0.1, as Discord does
under its names; the bot reaches it through DISCORD_CONNECT_TO and trusts it through
DISCORD_CA_FILE (adapters/discord/redirect.py), so discord.py keeps its own URLs. A CA and a leaf
signed by it, with the extensions strict verification asks for (Python 3.13's default context).
"""

from __future__ import annotations

import atexit
import ipaddress
import shutil
import ssl
import tempfile
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NAMES = ("discord.com", "gateway.discord.gg")
ADDRESS = "127.0.0.1"


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _usage(*, sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not sign, content_commitment=False, key_encipherment=False,
        data_encipherment=False, key_agreement=False, key_cert_sign=sign, crl_sign=sign,
        encipher_only=False, decipher_only=False,
    )  # fmt: skip


@cache
def files() -> tuple[Path, Path]:
    """(the CA's certificate, the server's certificate chain and key), as PEM files."""
    now = datetime.now(UTC) - timedelta(days=1)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("fake Discord test CA")
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(now + timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_usage(sign=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    names: list[x509.GeneralName] = [x509.DNSName(n) for n in NAMES]
    names.append(x509.IPAddress(ipaddress.ip_address(ADDRESS)))
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name(NAMES[0])).issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(now + timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(sign=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(x509.SubjectAlternativeName(names), False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="zq-fake-discord-tls-"))
    atexit.register(shutil.rmtree, folder, True)
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "server.pem").write_bytes(
        leaf.public_bytes(pem)
        + key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return folder / "ca.pem", folder / "server.pem"


def server_context() -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(files()[1])
    return context


def client_context() -> ssl.SSLContext:
    """What a person's client would trust: here, the fake's CA only."""
    return ssl.create_default_context(cafile=files()[0])
