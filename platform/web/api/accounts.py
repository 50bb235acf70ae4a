"""Accounts in the API: register (a bounded number an hour from one address), get a token with a password
(throttled), rotate it, revoke it.

Failed logins are counted by django-axes (per username and address, in the database) on the login page,
/admin/ and POST /api/token/ alike; a locked-out pair gets 429 with Retry-After until the cool-off ends.
"""
from __future__ import annotations

from axes.helpers import get_client_ip_address, get_cool_off
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, user_logged_in
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from players.models import Player
from players.services import revoke_token, rotate_token, username_problem
from web.api.errors import API_PREFIX, error_body
from web.api.parsers import JSONBodyParser

# Logins and registrations come as JSON or as a plain form (curl -d username=...&password=...).
ACCOUNT_PARSERS = [JSONBodyParser, FormParser, MultiPartParser]


def cool_off_seconds(request: HttpRequest) -> int:
    cool_off = get_cool_off(request)
    return int(cool_off.total_seconds()) if cool_off else 0


def lockout_message(seconds: int) -> str:
    return f"too many failed logins for this username from this address; try again in {seconds} seconds"


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict | None = None) -> HttpResponse:
    """What a locked-out login gets (axes' AXES_LOCKOUT_CALLABLE): 429 with Retry-After, JSON under /api/."""
    seconds = cool_off_seconds(request)
    if request.path.startswith(API_PREFIX):
        response = JsonResponse(error_body("throttled", lockout_message(seconds)), status=429)
    else:
        messages.error(request, lockout_message(seconds))
        response = render(request, "registration/login.html", {"form": AuthenticationForm(request)}, status=429)
    response["Retry-After"] = str(seconds)
    return response


class RegistrationThrottle(SimpleRateThrottle):
    """Registrations from one address, ``ARENA["REGISTRATIONS_PER_HOUR"]``: every bound on work (matches queued,
    versions pending) is per player, so accounts made by the hundred would add up. Counted only once a
    registration is valid (a newcomer's typos cost nothing), in the cache all web processes share, from the
    address axes reads (behind the TLS proxy: the client's)."""

    scope = "register"

    def get_rate(self) -> str:
        return f"{settings.ARENA['REGISTRATIONS_PER_HOUR']}/hour"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": get_client_ip_address(request) or self.get_ident(request)}


def registration_wait(request: HttpRequest) -> int | None:
    """None if one more registration from this address may go ahead (and it is counted); else the seconds to wait."""
    throttle = RegistrationThrottle()
    if throttle.allow_request(request, None):
        return None
    return max(1, int(throttle.wait() or 1))


def registration_refusal(seconds: int) -> str:
    return f"too many new accounts from this address; try again in {seconds} seconds"


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="send it as `Authorization: Token <token>`")


class RegisterSerializer(serializers.ModelSerializer):
    password = serializers.CharField(write_only=True, max_length=4096, trim_whitespace=False,
                                     style={"input_type": "password"})

    class Meta:
        model = Player
        fields = ["username", "email", "password"]
        extra_kwargs = {"email": {"required": False}}

    def validate_username(self, value: str) -> str:
        problem = username_problem(value)
        if problem:
            raise ValidationError(problem)
        return value

    def validate(self, attrs):
        candidate = Player(username=attrs["username"], email=attrs.get("email", ""))
        try:
            validate_password(attrs["password"], user=candidate)
        except DjangoValidationError as exc:
            raise ValidationError({"password": list(exc.messages)}) from None
        return attrs

    def create(self, validated_data):
        return Player.objects.create_user(**validated_data)


class TokenView(APIView):
    """POST: a token for a username and password. DELETE: revoke your token."""

    parser_classes = ACCOUNT_PARSERS

    def get_permissions(self):
        if self.request.method == "POST":
            return [permissions.AllowAny()]
        return [permissions.IsAuthenticated()]

    @extend_schema(request=CredentialsSerializer, responses={200: TokenSerializer}, auth=[],
                   description="Your token (created on first use). Failed attempts are counted: after "
                               "ARENA_LOGIN_FAILURE_LIMIT (5) for one username from one address, 429 with "
                               "Retry-After until the cool-off ends.")
    def post(self, request):
        form = CredentialsSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        user = authenticate(request._request, **form.validated_data)
        if user is None:
            if getattr(request._request, "axes_locked_out", False):
                seconds = cool_off_seconds(request._request)
                raise Throttled(wait=seconds, detail=lockout_message(seconds))
            raise ValidationError({"non_field_errors": ["unable to log in with these credentials"]})
        # A password exchanged for a token is a login: axes resets the failure count, last_login is set.
        user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})

    @extend_schema(request=None, responses={204: None})
    def delete(self, request):
        revoke_token(request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RotateTokenView(APIView):
    """A new token for you; the old one stops working at once."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: TokenSerializer})
    def post(self, request):
        return Response({"token": rotate_token(request.user).key})


class RegisterView(APIView):
    """Register a player: the answer carries its API token."""

    parser_classes = ACCOUNT_PARSERS

    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    @extend_schema(request=RegisterSerializer, auth=[],
                   responses={201: inline_serializer("Registered", {"username": serializers.CharField(),
                                                                    "token": serializers.CharField()})})
    def post(self, request):
        form = RegisterSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        wait = registration_wait(request._request)
        if wait is not None:
            raise Throttled(wait=wait, detail=registration_refusal(wait))
        try:
            with transaction.atomic():
                player = form.save()
                token = Token.objects.create(user=player)
        except IntegrityError:  # the same username registered a moment ago, between the check and the insert
            raise ValidationError({"username": ["A user with that username already exists."]}) from None
        return Response({"username": player.username, "token": token.key}, status=status.HTTP_201_CREATED)
