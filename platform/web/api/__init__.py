"""The REST API under ``/api/``: serializers, views, paging, parsers, renderers and one error shape, described
by the OpenAPI schema at ``/api/schema/``. Writes go through the apps' services, reads through selectors.
"""
