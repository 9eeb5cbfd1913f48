"""The engine registry: one instance per name, registrations undone, third-party entry points loaded
or reported, capabilities known without building an engine, and the chooser picking by capability."""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from PIL import Image

from ocrqueue.documents import ProcessOptions
from ocrqueue.documents.engines import (
    ENTRY_POINT_GROUP,
    EngineCapabilities,
    EngineOutput,
    EngineSpec,
    RecognitionRequest,
    available_engines,
    engine_capabilities,
    get_engine,
    registered_engine,
    unregister_engine,
)
from ocrqueue.documents.engines.rapid import shipped_capabilities
from ocrqueue.documents.engines.registry import BUILTIN_ENGINES, EngineRegistry
from ocrqueue.documents.engines.tesseract import find_tessdata, installed_capabilities
from ocrqueue.documents.errors import InvalidOptionsError, UnknownEngineError
from ocrqueue.documents.ocr.engine_choice import choose, first_look_engine

LATIN_ONLY = EngineCapabilities(scripts=frozenset({"Latin"}), languages=frozenset({"eng"}))


@dataclass
class EchoEngine:
    """Answers nothing; notes each time one is built, and declares what it is given."""

    name: str = "echo"
    capabilities: EngineCapabilities = LATIN_ONLY

    def __post_init__(self) -> None:
        BUILDS.append(self.name)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        return EngineOutput(())


BUILDS: list[str] = []
NOT_AN_ENGINE = 42


def failing_factory() -> EchoEngine:
    raise RuntimeError("no model file")


ECHO_SPEC = EngineSpec(EchoEngine, lambda: LATIN_ONLY)


def point(name: str, attribute: str, module: str = __name__) -> EntryPoint:
    return EntryPoint(name=name, value=f"{module}:{attribute}", group=ENTRY_POINT_GROUP)


def test_one_instance_per_name_and_a_registration_undone_brings_back_the_builtin() -> None:
    tesseract = get_engine("tesseract")
    assert get_engine("tesseract") is tesseract
    spy = EchoEngine("tesseract")
    with registered_engine("tesseract", lambda: spy):
        assert get_engine("tesseract") is spy
        assert engine_capabilities("tesseract") == LATIN_ONLY
    assert get_engine("tesseract") is tesseract
    with registered_engine("extra", EchoEngine):
        assert "extra" in available_engines()
    assert "extra" not in available_engines()
    with pytest.raises(UnknownEngineError, match="unknown OCR engine 'extra'"):
        get_engine("extra")


def test_a_nested_registration_restores_the_one_before_it() -> None:
    outer, inner = EchoEngine("outer"), EchoEngine("inner")
    with registered_engine("echo", lambda: outer):
        with registered_engine("echo", lambda: inner):
            assert get_engine("echo") is inner
        assert get_engine("echo") is outer
        unregister_engine("echo")
        assert "echo" not in available_engines()
    assert "echo" not in available_engines()


def test_entry_points_are_found_and_broken_ones_logged_with_their_package(caplog: pytest.LogCaptureFixture) -> None:
    points = [
        point("echo", "EchoEngine"),
        point("spec", "ECHO_SPEC"),
        point("gone", "Engine", module="no_such_module_for_ocrqueue"),
        point("number", "NOT_AN_ENGINE"),
        point("tesseract", "EchoEngine"),
        point("failing", "failing_factory"),
    ]
    registry = EngineRegistry(BUILTIN_ENGINES, lambda: points)
    with caplog.at_level(logging.WARNING, logger="ocrqueue.engines"):
        names = registry.names()
    assert names == ["tesseract", "rapidocr", "echo", "spec", "failing"]
    messages = [r.getMessage() for r in caplog.records]
    assert any("'gone'" in m and "no_such_module_for_ocrqueue:Engine" in m and "not be loaded" in m for m in messages)
    assert any("'number'" in m and "not an engine factory" in m for m in messages)
    assert any("'tesseract'" in m and "name is taken" in m for m in messages)
    BUILDS.clear()
    assert registry.capabilities("echo") == LATIN_ONLY and BUILDS == ["echo"]  # read from the built engine
    assert registry.get("echo") is registry.get("echo") and BUILDS == ["echo"]
    assert registry.capabilities("spec") == LATIN_ONLY and BUILDS == ["echo"]  # declared without building
    with pytest.raises(InvalidOptionsError, match=r"'failing'.*failed to start: no model file"):
        registry.get("failing")
    assert registry.capabilities("failing") is None


def test_tesseract_declares_what_its_installed_traineddata_read() -> None:
    installed = frozenset(p.stem for p in Path(find_tessdata()).glob("*.traineddata"))
    tesseract = engine_capabilities("tesseract")
    assert tesseract == installed_capabilities(installed)
    assert tesseract.languages == installed - {"osd"} and tesseract.word_boxes
    assert tesseract.detects_orientation == ("osd" in installed)
    few = installed_capabilities(frozenset({"eng", "rus", "HanS", "Latin"}))
    assert few.scripts == {"Latin", "Cyrillic", "Han"} and not few.detects_orientation


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="the rapidocr extra is not installed")
def test_rapidocr_declares_its_shipped_models_without_loading_them() -> None:
    capabilities = shipped_capabilities()
    assert capabilities is not None and capabilities.reads_regions and capabilities.word_boxes
    assert {"Han", "Latin"} <= capabilities.scripts and {"chi_sim", "eng"} <= capabilities.languages
    registry = EngineRegistry(BUILTIN_ENGINES)
    assert registry.capabilities("rapidocr") == capabilities


def test_a_script_goes_to_the_best_ranked_engine_that_reads_it() -> None:
    """Han ranks RapidOCR first; an engine under that name that does not read Han is passed over."""
    with registered_engine("rapidocr", lambda: EchoEngine("rapidocr")):
        assert choose(ProcessOptions(), ("Han",)) == ("tesseract", ("chi_sim", "eng"))
    han = EngineCapabilities(scripts=frozenset({"Han", "Latin"}), languages=frozenset({"chi_sim", "eng"}))
    with registered_engine("rapidocr", lambda: EchoEngine("rapidocr", han)):
        assert choose(ProcessOptions(), ("Latin", "Han")) == ("rapidocr", ("eng", "chi_sim"))
        assert choose(ProcessOptions(), ("Latin",))[0] == "tesseract"


def test_an_engine_asked_for_no_languages_records_those_of_the_scripts_found() -> None:
    sees = EngineCapabilities(scripts=frozenset({"Latin", "Han"}), reads_regions=True)
    with registered_engine("sees", lambda: EchoEngine("sees", sees)):
        assert choose(ProcessOptions(engine="sees"), ("Latin",)) == ("sees", ("eng",))
        assert choose(ProcessOptions(engine="sees"), ("Han",)) == ("sees", ("chi_sim", "eng"))


def test_the_first_look_goes_to_the_named_engine_only_if_it_detects_orientation() -> None:
    with registered_engine("echo", EchoEngine):
        assert first_look_engine(ProcessOptions(engine="echo")) is get_engine("tesseract")
    with registered_engine("tesseract", lambda: EchoEngine("tesseract")):
        assert first_look_engine(ProcessOptions()) is None


def test_two_names_with_one_factory_get_an_instance_each() -> None:
    with registered_engine("one", EchoEngine), registered_engine("two", EchoEngine):
        assert get_engine("one") is not get_engine("two")
        assert get_engine("one") is get_engine("one")
