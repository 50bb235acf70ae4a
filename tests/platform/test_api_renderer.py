"""The API's JSON renderer (orjson) writes what DRF's own renderer writes."""
import datetime
import decimal
import json
import uuid

from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

from web.api.renderers import JSONRenderer

UTC = datetime.timezone.utc
PAYLOADS = [
    {"a": 1, "b": [1, 2, {"c": None, "d": True, "e": False}], "f": "text"},
    [],
    {},
    "plain",
    12,
    {"unicode": "Capitán, Alhambra – “quoted” ✓ 🎲", "control": "tab\tnew\nline\x00\x1f", "quote": 'a"b\\c'},
    {"separators": "line\u2028paragraph\u2029end", "dash": "en – dash"},
    {"aware": datetime.datetime(2026, 11, 25, 3, 50, 34, 123456, tzinfo=UTC),
     "whole second": datetime.datetime(2026, 11, 25, 3, 50, 34, tzinfo=UTC),
     "offset": datetime.datetime(2026, 11, 25, 3, 50, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
     "naive": datetime.datetime(2026, 11, 25, 3, 50, 34, 5), "date": datetime.date(2026, 11, 25),
     "uuid": uuid.UUID(int=7)},
    {"lazy": gettext_lazy("This field is required."), "bytes": b"raw", "set": {3}, "tuple": (1, "two"),
     1: "int key", "nested": {2: [decimal.Decimal("1.5")]}},
    ReturnDict({"rows": ReturnList([{"id": 1}], serializer=None)}, serializer=None),
    {"big": 2**70},
]


def test_the_same_bytes_as_drf_where_no_float_is_written():
    ours, drf = JSONRenderer(), DrfJSONRenderer()
    for payload in PAYLOADS:
        assert ours.render(payload) == drf.render(payload), payload


def test_floats_are_the_same_values():
    payload = {"mu": 25.0, "sigma": 8.333333333333334, "small": 1e-07, "conservative": -0.123456789, "int": 3,
               "history": [[1, 24.99], [2, 1.5e300]]}
    assert json.loads(JSONRenderer().render(payload)) == json.loads(DrfJSONRenderer().render(payload))


def test_an_indented_response_is_drfs():
    payload = {"a": [1, 2]}
    media = "application/json; indent=4"
    assert JSONRenderer().render(payload, media) == DrfJSONRenderer().render(payload, media)
    assert JSONRenderer().render(None) == b""


def test_the_api_answers_with_it(client):
    response = client.get("/api/games/")
    assert response.status_code == 200
    assert response.content == DrfJSONRenderer().render(response.json())
