"""Property testing with relucheck: hypothesis strategies for instances (`relucheck.testing.strategies`).

Needs hypothesis (``pip install 'relucheck[test]'``).
"""
