# mill-server in a container (docs/DEPLOY.md):
#   docker build -t mill .
#   docker run -d -p 8080:8080 -v mill-data:/data -e MILL_PUBLIC_URL=https://mill.example.org mill
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
# The page's WebAssembly (installs the wasm target and wasm-bindgen-cli), then the server,
# then the endgame tables the computer plays endings from (about 13 s of CPU).
RUN scripts/build-wasm --check && cargo build --release --locked -p mill-server \
    && cargo run --release --locked -p mill-cli -- tb generate --dir tb --max 4

FROM debian:bookworm-slim
RUN useradd --system --home-dir /data --shell /usr/sbin/nologin mill \
    && mkdir -p /data && chown mill:mill /data
COPY --from=build /src/target/release/mill-server /usr/local/bin/mill-server
COPY --from=build /src/static /usr/local/share/mill/static
COPY --from=build /src/tb /usr/local/share/mill/tb
USER mill
WORKDIR /data
VOLUME /data
EXPOSE 8080
ENV MILL_ADDR=0.0.0.0:8080 \
    MILL_DB=/data/mill.db \
    MILL_STATIC_DIR=/usr/local/share/mill/static \
    MILL_TB_DIR=/usr/local/share/mill/tb \
    MILL_LOG_FORMAT=json \
    RUST_LOG=info
# docker stop sends SIGTERM: the graceful stop.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/mill-server"]
