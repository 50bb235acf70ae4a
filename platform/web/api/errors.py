"""One error shape for the whole API: {"error": <short code>, "detail": <what is wrong>}."""
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from bots.selectors import BotNotFound
from bots.services import UploadError
from engines.core import BadOptions
from tournaments.services import TournamentError


def exception_handler(exc, context):
    if isinstance(exc, (TournamentError, BadOptions, BotNotFound, UploadError)):
        return Response({"error": "invalid", "detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None:
        code = getattr(exc, "default_code", "error")
        response.data = {"error": code, "detail": response.data.get("detail", response.data)
                         if isinstance(response.data, dict) else response.data}
    return response
