"""CUDA C sources of mazeroute's GPU engines, shipped as text (installed as mazeroute.kernels)."""
