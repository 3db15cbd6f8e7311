"""The language model behind one small interface, and its Ollama adapter (the official ``ollama`` client).

``timeout_s`` is a total deadline per call, not httpx's per-read timeout: a server that drips a byte every few
seconds still gives up in time (see :mod:`core.llm._deadline`).

Chat replies stream (``stream=True``): the chunks' text is joined on the call's helper thread, which looks at the
bound Stop (:mod:`core.llm._cancel`) between chunks and reports the running token count to a bound progress
callback. A reply counts only once the server's final ``done`` chunk arrives; an error line mid-stream is an error.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from core.cancellation import Cancellation
from core.errors import LLMError, LLMTimeout, LLMUnavailable, ModelNotFound, QueryCancelled
from core.llm._cancel import TokenProgress, current_cancel, current_token_progress
from core.llm._deadline import ClientPool, total_timeout_s

__all__ = ["LLM", "ModelInfo", "OllamaLLM", "SQL_OPTIONS"]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 120.0

# Near-deterministic decoding for SQL (the seed's settings): greedy, short, no repetition penalty on keywords.
SQL_OPTIONS: Mapping[str, Any] = {
    "temperature": 0.0,
    "top_k": 1,
    "top_p": 0.1,
    "num_predict": 400,
    "num_ctx": 4096,
    "repeat_penalty": 1.0,
}


@runtime_checkable
class LLM(Protocol):
    """Anything that answers a system + user chat turn with text."""

    model: str

    def chat(self, system: str, user: str, *, options: Mapping[str, Any] | None = None,
             format: Mapping[str, Any] | None = None) -> str:  # noqa: A002 - Ollama's own name for it
        """One chat turn, the whole reply as text. ``format``: a JSON schema the reply must follow (Ollama's
        structured output). Raises LLMUnavailable / ModelNotFound / LLMTimeout / LLMError (and QueryCancelled
        when a bound Stop fires)."""
        ...


@dataclass(frozen=True)
class ModelInfo:
    name: str
    size_bytes: int
    parameter_size: str = ""
    quantization: str = ""


class OllamaLLM:
    """Talks to the user's Ollama over ``/api/chat``. Ignores proxy variables: traffic stays on this host."""

    def __init__(
        self, host: str, model: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, num_ctx: int = 4096
    ) -> None:
        self.host = host
        self.model = model
        self.timeout_s = timeout_s  # in total per call; clamped when used (NaN or infinity never disable it)
        self.num_ctx = num_ctx
        self.last_prompt_tokens = 0
        self.last_done_reason = ""
        self._pool = ClientPool(self._make_client)

    def _make_client(self, event_hooks: dict[str, list[Any]]) -> Any:
        import ollama

        # trust_env=False: an HTTP(S)_PROXY in the environment must never route prompts off the machine.
        return ollama.Client(host=self.host, timeout=self._deadline_s(), trust_env=False, event_hooks=event_hooks)

    def _deadline_s(self) -> float:
        return total_timeout_s(self.timeout_s, DEFAULT_TIMEOUT_S)

    def _call(self, fn: Any) -> Any:
        """``fn(client)`` within the total timeout; LLMTimeout (with a hint) when it passes."""
        seconds = self._deadline_s()
        return self._pool.call(
            fn,
            seconds,
            cancel=current_cancel(),
            message=f"Ollama at {self.host} did not answer in time ({seconds:g} s in total).",
            hint=f"The model {self.model!r} took longer than the LLM timeout of {seconds:g} s. Try a smaller model, "
            "raise the LLM timeout in settings, or check that Ollama is not stuck (`ollama ps`).",
        )

    def chat(self, system: str, user: str, *, options: Mapping[str, Any] | None = None,
             format: Mapping[str, Any] | None = None) -> str:  # noqa: A002
        opts = dict(SQL_OPTIONS)
        opts["num_ctx"] = self.num_ctx
        opts.update(options or {})
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        cancel, on_tokens = current_cancel(), current_token_progress()  # read here: the call runs on another thread
        with self._translate_errors():
            content, final = self._call(
                lambda client: _join_stream(
                    client.chat(model=self.model, messages=messages, options=opts, stream=True,
                                **({"format": dict(format)} if format is not None else {})),
                    cancel, on_tokens, self.host)
            )
        # What the server counted for this call (``cairn eval`` reports prompt tokens); 0 when it does not say.
        self.last_prompt_tokens = int(getattr(final, "prompt_eval_count", 0) or 0)
        # Why the model stopped: "stop" (it finished) or "length" (it reached num_predict: the reply is cut off).
        self.last_done_reason = str(getattr(final, "done_reason", "") or "")
        return content

    def version(self) -> str:
        with self._translate_errors():
            data = self._call(lambda client: client._request_raw("GET", "/api/version").json())
        return str(data.get("version", "?"))

    def list_models(self) -> list[ModelInfo]:
        with self._translate_errors():
            listed = self._call(lambda client: client.list())
        out = []
        for m in listed.models:
            details = m.details
            out.append(
                ModelInfo(
                    name=str(m.model),
                    size_bytes=int(m.size or 0),
                    parameter_size=str(getattr(details, "parameter_size", "") or ""),
                    quantization=str(getattr(details, "quantization_level", "") or ""),
                )
            )
        return out

    def close(self) -> None:
        self._pool.close()

    def _translate_errors(self) -> _OllamaErrors:
        return _OllamaErrors(self.host, self.model)


def _join_stream(parts: Iterator[Any], cancel: Cancellation | None, on_tokens: TokenProgress | None,
                 host: str) -> tuple[str, Any]:
    """The streamed reply's text and its final chunk (the server's counts). Stops at the first chunk after Stop,
    closing the stream so the server sees the request closed, even when cutting the socket were late."""
    texts: list[str] = []
    final: Any = None
    try:
        try:
            for chunk in parts:
                if cancel is not None and cancel.cancelled:
                    raise QueryCancelled("Stopped while the model was writing.",
                                         hint="Nothing was run; ask again any time.")
                final = chunk
                if chunk.message.content:
                    texts.append(chunk.message.content)
                    _report(on_tokens, len(texts))
        except AttributeError as exc:  # a line of JSON that is not an object (the client calls .get on it)
            raise TypeError(f"not an Ollama chat chunk: {exc}") from exc
    finally:
        close = getattr(parts, "close", None)
        if close is not None:
            close()  # a generator: leaves httpx's stream, closing the response if unread
    if final is None or not final.done:
        raise LLMUnavailable(
            f"Ollama at {host} closed the connection before its reply was complete.",
            hint="Ollama may have crashed or run out of memory; check its log, then try again.",
        )
    return "".join(texts), final


def _report(on_tokens: TokenProgress | None, count: int) -> None:
    if on_tokens is None:
        return
    try:
        on_tokens(count)
    except Exception as exc:  # noqa: BLE001 - a broken progress display must not end the model call
        logger.debug("token progress callback failed: %s", exc)


class _OllamaErrors:
    """Maps the ollama client's and httpx's exceptions onto Cairn's error tree."""

    def __init__(self, host: str, model: str) -> None:
        self.host = host
        self.model = model

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            return
        import httpx
        import ollama

        if isinstance(exc, ollama.ResponseError):
            text = str(exc.error)
            if exc.status_code == -1:  # an {"error": ...} line in the middle of a streamed reply
                raise LLMError(
                    f"Ollama stopped while the model was writing: {text}",
                    hint=f"The model {self.model!r} failed mid-reply, often for lack of memory. Try again, try a "
                    "smaller model, or check Ollama's log.",
                ) from exc
            if exc.status_code == 404 or "not found" in text.lower():
                raise ModelNotFound(
                    f"The model {self.model!r} is not available in Ollama at {self.host}.",
                    hint=f"Pull it with `ollama pull {self.model}`, or pick an installed model with --model.",
                ) from exc
            raise LLMError(f"Ollama answered with an error: {text}") from exc
        if isinstance(exc, httpx.TimeoutException):
            raise LLMTimeout(f"Ollama at {self.host} did not answer in time.") from exc
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            raise LLMUnavailable(
                f"Ollama at {self.host} closed the connection before its reply was complete.",
                hint="Ollama may have crashed or run out of memory; check `ollama ps` or its log, then try again.",
            ) from exc
        if isinstance(exc, (ConnectionError, httpx.TransportError)):
            raise LLMUnavailable(f"Ollama is not reachable at {self.host}.") from exc
        if isinstance(exc, (ValueError, TypeError, httpx.HTTPError)):
            # not JSON, or JSON of another shape (pydantic's ValidationError is a ValueError): not Ollama's API
            raise LLMError(
                f"The server at {self.host} sent a reply that is not an Ollama answer.",
                hint="Check that OLLAMA_HOST (or the Ollama address in settings) points at Ollama itself.",
            ) from exc
