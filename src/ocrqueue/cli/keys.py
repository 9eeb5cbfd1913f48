"""`ocrqueue keys`: API keys for tenants."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ocrqueue.service import WebhookStore
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.runtime import prepare_database
from ocrqueue.settings import Settings

keys_app = typer.Typer(help="API keys: once one exists, every API call needs one.", no_args_is_help=True)
console = Console()


def _keys() -> ApiKeys:
    return ApiKeys(prepare_database(Settings()))


@keys_app.command("create")
def create(
    tenant: Annotated[str, typer.Option(help="Whose tasks this key sees, cancels and downloads.")],
    name: Annotated[str, typer.Option(help="A note to recognise the key by.")] = "",
) -> None:
    """Create a key and print its token once (it is stored only as a hash), then the secret that signs
    the webhooks of its tasks (shown once too).

    Example: ocrqueue keys create --tenant acme --name "scanner upload"
    """
    keys = _keys()
    first = not keys.auth_required()
    key, token, webhook_secret = keys.create_with_webhook_secret(tenant, name)
    keys.close()
    if first:
        console.print(
            "[yellow]the first key: from now on every API call needs one (a running `ocrqueue serve` asks "
            "from its next request), and serve may listen beyond 127.0.0.1[/yellow]",
            highlight=False,
        )
    console.print(f"key {key.id} for tenant {key.tenant}:")
    print(token)
    console.print("webhook signing secret (Standard Webhooks), for callback_url receivers:")
    print(webhook_secret)


@keys_app.command("webhook-secret")
def webhook_secret() -> None:
    """Print the secret that signs webhooks of tasks submitted in local mode (no API key).

    Example: ocrqueue keys webhook-secret
    """
    hooks = WebhookStore(prepare_database(Settings()))
    try:
        print(hooks.local_secret())
    finally:
        hooks.close()


@keys_app.command("list")
def list_keys() -> None:
    """List keys (never their tokens).

    Example: ocrqueue keys list
    """
    table = Table("id", "tenant", "name", "created", "revoked")
    for key in _keys().list():
        table.add_row(key.id, key.tenant, key.name, key.created_at.isoformat(timespec="seconds"),
                      key.revoked_at.isoformat(timespec="seconds") if key.revoked_at else "")  # fmt: skip
    console.print(table)


@keys_app.command("revoke")
def revoke(key_id: str) -> None:
    """Revoke a key at once (within a few seconds on every server).

    Example: ocrqueue keys revoke 3f9a1c0b2d4e5f60
    """
    if not _keys().revoke(key_id):
        console.print(f"[red]no active key {key_id}[/red]")
        raise typer.Exit(3)
    console.print(f"revoked {key_id}")
