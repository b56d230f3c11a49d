"""sxs judge app: the store, importers and exporters, the CLI and the Streamlit judging app."""
