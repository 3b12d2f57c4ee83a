"""trickledger's dashboard: the Streamlit app, its pages and the server's guards."""

if __name__ != "trickledger.dashboard":  # the checkout's folder, imported by its folder name
    raise ImportError("dashboard/ is installed as trickledger.dashboard: import trickledger.dashboard "
                      "(pip install . or pip install -e . first)")
