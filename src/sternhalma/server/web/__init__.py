"""The FastAPI app: pages and the HTTP API, the guard before every route, and the
table and analysis websockets."""
