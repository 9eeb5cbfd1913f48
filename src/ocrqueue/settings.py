"""One settings object for every layer.

Values come from `OCRQUEUE_*` environment variables or a `.env` file in the working directory.
Every field is documented in `docs/configuration.md`; keep the two in step.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ocrqueue.documents.input.limits import DocumentLimits
from ocrqueue.documents.vlm.client import VlmConfig
from ocrqueue.queue.config import QueueConfig


class Settings(BaseSettings):
    """Service configuration; every default is what `make serve` runs with."""

    model_config = SettingsConfigDict(env_prefix="OCRQUEUE_", env_file=".env", extra="ignore")

    data_dir: Path = Field(
        default=Path("./ocrqueue-data"),
        description="Holds the SQLite database file and local storage.",
    )
    database_url: str | None = Field(
        default=None,
        description="Database URL (postgresql://user@host/db or sqlite:///path). "
        "Default: SQLite file `ocrqueue.db` inside data_dir.",
    )
    storage_dir: Path | None = Field(
        default=None,
        description="Uploads and results; unset means `storage` inside data_dir. A shared mount for many machines.",
    )
    storage_url: str | None = Field(
        default=None,
        description="Object storage instead of storage_dir: s3://bucket/prefix?endpoint=URL&region=NAME.",
    )
    max_upload_bytes: int = Field(default=200 * 1024 * 1024, ge=1, description="Largest accepted file.")
    max_pages: int = Field(
        default=10_000,
        ge=1,
        description="Most pages accepted in one document (memory stays flat whatever the count; "
        "docs/benchmarks.md has the time it takes).",
    )
    max_pixels_per_page: int = Field(
        default=60_000_000, ge=1, description="Largest rendered or decoded page, in pixels."
    )
    render_pixel_budget: int = Field(
        default=12_000_000,
        ge=1,
        description="Pages are rendered for OCR at a resolution lowered to fit this many pixels "
        "(never below 72 dpi), so a poster-sized page does not take gigabytes.",
    )
    min_page_side_pixels: int = Field(
        default=8, ge=1, description="Pages and images thinner than this (in pixels, as read) are refused."
    )
    split_pages: int = Field(
        default=16,
        ge=0,
        description="A document of more pages is read by child tasks of this many pages each, which any "
        "worker claims, and assembled in page order (0: one task reads every page).",
    )
    render_dpi: int = Field(default=200, ge=72, le=600, description="Resolution pages are rendered at for OCR.")
    page_buffer_keep_mb: int = Field(
        default=64,
        ge=0,
        description="Freed memory (MiB) a worker keeps for the next page instead of returning it to the OS "
        "(glibc malloc; 0: malloc's defaults). Saves ~10 ms of page faults per OCR page.",
    )
    default_engine: str = Field(
        default="auto",
        description="OCR engine when a task names none; auto: per page, by its script "
        "(RapidOCR for Chinese, Tesseract for the rest).",
    )
    default_languages: list[str] = Field(
        default_factory=lambda: ["auto"],
        description='OCR languages when a task names none; ["auto"]: per page, from the scripts found on it '
        "(Latin: Tesseract's Latin script model, which reads every Latin-script language's accents).",
    )
    auto_migrate: bool = Field(default=True, description="Apply pending schema migrations when a process starts.")

    host: str = Field(default="127.0.0.1", description="Address `ocrqueue serve` listens on.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `ocrqueue serve` listens on.")
    bootstrap_api_key: SecretStr | None = Field(
        default=None,
        description="An API key `serve` stores (hashed) at start unless it exists, so a container can listen "
        "beyond 127.0.0.1 from its first start; at least 32 characters.",
    )
    bootstrap_tenant: str = Field(default="default", min_length=1, description="The tenant of bootstrap_api_key.")
    cors_origins: list[str] = Field(
        default_factory=list, description="Origins allowed to call the API from a browser (empty: none)."
    )
    submit_rate_per_minute: int = Field(
        default=600, ge=1, description="Submits allowed per API key per minute (a token bucket of that size)."
    )
    max_files_per_request: int = Field(
        default=20, ge=1, le=1000, description="`file` parts one POST /api/v1/tasks may carry (one task each)."
    )
    convert_wait_seconds: float = Field(
        default=60.0, ge=0, description="How long POST /api/v1/convert waits for its task when `wait` is not given."
    )
    convert_max_wait_seconds: float = Field(
        default=300.0, ge=0, description="The largest `wait` POST /api/v1/convert accepts."
    )
    worker_concurrency: int = Field(default=4, ge=1, le=256, description="Task slots per worker process.")
    lease_seconds: float = Field(default=20.0, gt=1, description="How long a claim holds a task without a heartbeat.")
    heartbeat_seconds: float = Field(
        default=5.0, gt=0, description="How often a worker renews all its leases (well under lease_seconds)."
    )
    reaper_seconds: float = Field(default=10.0, gt=0, description="Mean interval between reaper runs (jittered ±50%).")
    poll_seconds: float = Field(
        default=1.0, gt=0, description="Longest wait between claim attempts when no wake-up arrives."
    )
    shutdown_grace_seconds: float = Field(
        default=10.0, ge=0, description="On SIGTERM, how long running tasks may finish before release."
    )
    task_stall_seconds: float = Field(
        default=600.0,
        gt=0,
        description="A handler silent this long (no progress, checkpoint or cancel check) is given up as hung.",
    )
    max_attempts: int = Field(default=4, ge=1, description="Attempts per task (1 + 3 retries).")
    backoff_base_seconds: float = Field(default=2.0, gt=0, description="Retry backoff base.")
    backoff_cap_seconds: float = Field(default=3600.0, gt=0, description="Retry backoff cap.")
    prune_after_days: float = Field(
        default=30.0, gt=0, description="Finished tasks older than this are deleted by `db prune`."
    )
    worker_prefetch: int = Field(
        default=16,
        ge=0,
        description="Extra tasks a worker may claim ahead while its tasks finish in milliseconds (0: never).",
    )
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Serve this node's Prometheus metrics on this port too, from the supervising process only "
        "(`ocrqueue worker` nodes; `serve` always has /metrics). Unset: off.",
    )
    log_format: Literal["auto", "rich", "json"] = Field(
        default="auto",
        description="Logs of `serve` and `worker`: `rich` for people, `json` one event per line for log shippers; "
        "`auto` is rich on a terminal and json otherwise.",
    )
    worker_processes: int = Field(
        default=0,
        ge=0,
        le=64,
        description="`ocrqueue worker` runs this many worker processes under itself, replacing each one "
        "that exits or crashes (0: it works in its own process and exits with status 75 to be replaced).",
    )
    max_tasks_per_process: int = Field(
        default=0, ge=0, description="A worker process hands its tasks back and is replaced after this many (0: never)."
    )
    max_rss_mb: int = Field(
        default=2048,
        ge=0,
        description="A worker process whose resident memory passes this after a task is replaced (0: never).",
    )
    worker_kinds: list[str] = Field(
        default_factory=list,
        description="Task kinds this worker claims (empty: every registered kind).",
    )

    vlm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible model server (GLM-OCR on vLLM, SGLang, Ollama) up to /v1; "
        "unset: no `vlm` engine and no `vision` tasks.",
    )
    vlm_model: str = Field(default="glm-ocr", min_length=1, description="Model name sent with every request.")
    vlm_api_key: str | None = Field(default=None, description="Bearer token for the model server, if it needs one.")
    vlm_max_in_flight: int = Field(
        default=4, ge=1, le=256, description="Model requests in flight at once per process (others wait)."
    )
    vlm_timeout_seconds: float = Field(default=120.0, gt=0, description="Read timeout of one model request.")
    vlm_connect_timeout_seconds: float = Field(default=5.0, gt=0, description="Connect timeout to the model server.")
    vlm_max_tokens: int = Field(default=8192, ge=1, description="max_tokens of one model answer.")
    vlm_image_format: Literal["png", "jpeg"] = Field(
        default="png", description="How region crops are encoded in the request's data URI."
    )
    vlm_breaker_failures: int = Field(
        default=5, ge=1, description="Consecutive model-server failures that open the circuit breaker."
    )
    vlm_breaker_cooldown_seconds: float = Field(
        default=30.0, gt=0, description="How long an open breaker waits before one probe request."
    )
    vision_max_image_bytes: int = Field(
        default=20 * 1024 * 1024, ge=1, description="Largest image accepted by POST /api/v1/vision."
    )

    server_url: str | None = Field(
        default=None,
        description="The ocrqueue server `submit` and `tasks` talk to over HTTP when set (as `--server`): "
        "no database or storage access needed.",
    )
    api_key: str | None = Field(
        default=None, description="The API key `submit`/`tasks` send to server_url (as `--api-key`)."
    )
    public_url: str | None = Field(
        default=None,
        description="How clients reach this service, e.g. https://ocr.example.com; links in webhook bodies start "
        "with it (unset: they are paths such as /api/v1/tasks/ID).",
    )
    webhook_allow_private_networks: bool = Field(
        default=False,
        description="Let callback_url reach loopback, private and link-local addresses (off: only public ones).",
    )
    webhook_timeout_seconds: float = Field(
        default=10.0, gt=0, le=300, description="Timeout of connecting, sending and each read of one webhook request."
    )
    webhook_max_attempts: int = Field(
        default=10, ge=1, le=50, description="Attempts of one webhook delivery before it is dead-lettered."
    )
    webhook_sweep_seconds: float = Field(
        default=1.0, gt=0, description="How often a worker process looks for ended tasks whose webhook is due."
    )

    @field_validator("database_url", "vlm_base_url", "vlm_api_key", "public_url", "server_url", "api_key")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("bootstrap_api_key", mode="before")
    @classmethod
    def _blank_secret_is_none(cls, value: object) -> object:
        return value or None

    @field_validator("vlm_base_url", "public_url", "server_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://, e.g. http://127.0.0.1:8080/v1")
        return value

    @cached_property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file in data_dir."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'ocrqueue.db').resolve()}"

    @property
    def resolved_storage_dir(self) -> Path:
        return self.storage_dir or self.data_dir / "storage"

    def document_limits(self) -> DocumentLimits:
        return DocumentLimits(
            max_file_bytes=self.max_upload_bytes,
            max_pages=self.max_pages,
            max_pixels_per_page=self.max_pixels_per_page,
            render_dpi=self.render_dpi,
            render_pixel_budget=self.render_pixel_budget,
            min_page_side_pixels=self.min_page_side_pixels,
        )

    def vlm_config(self) -> VlmConfig | None:
        """The model server's client configuration, or None when no model server is configured."""
        if self.vlm_base_url is None:
            return None
        return VlmConfig(
            base_url=self.vlm_base_url,
            model=self.vlm_model,
            api_key=self.vlm_api_key,
            max_in_flight=self.vlm_max_in_flight,
            timeout_seconds=self.vlm_timeout_seconds,
            connect_timeout_seconds=self.vlm_connect_timeout_seconds,
            max_tokens=self.vlm_max_tokens,
            image_format=self.vlm_image_format,
            breaker_failures=self.vlm_breaker_failures,
            breaker_cooldown_seconds=self.vlm_breaker_cooldown_seconds,
        )

    def queue_config(self) -> QueueConfig:
        """The subset the queue library needs, so `queue/` never imports settings."""
        return QueueConfig(
            lease_seconds=self.lease_seconds,
            heartbeat_seconds=self.heartbeat_seconds,
            reaper_seconds=self.reaper_seconds,
            poll_seconds=self.poll_seconds,
            shutdown_grace_seconds=self.shutdown_grace_seconds,
            concurrency=self.worker_concurrency,
            backoff_base_seconds=self.backoff_base_seconds,
            backoff_cap_seconds=self.backoff_cap_seconds,
            prefetch=self.worker_prefetch,
            stall_seconds=self.task_stall_seconds,
            max_tasks_per_process=self.max_tasks_per_process,
            max_rss_mb=self.max_rss_mb,
        )
