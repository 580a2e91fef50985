"""Published figures the report puts beside this pipeline's own (the sources' tables; facts, not results).

Sources: Cunanan & Thielscher (IJCAI 2023) Tables 1-4; Poirrier's blindfold note.
"""

TABLE1_WORDLE = {  # greedy valuation combination -> (total, opener)
    "MostParts,InSet,ExpSizeSplit": (7944, "trace"),
    "MostParts,InSet,Information": (7945, "trace"),
    "MostParts,InSet": (7949, "trace"),
    "Information,InSet,ExpSizeSplit": (8019, "soare"),
    "MostParts": (8077, "trace"),
    "Information": (8167, "soare"),
    "ExpSizeSplit": (8207, "roate"),
    "MaxSizeSplit": (8510, "aesir"),
    "InSet": (10069, "aback"),
}

TABLE2_UPPER_BOUNDS = {  # game -> {breadth: (total, opener or None)}; Nerdle/Primel: at-or-below passes
    "wordle_original": {1: (7944, "trace"), 5: (7921, "salet"), 10: (7920, "salet"), 20: (7920, "salet")},
    "ffxivrdle": {1: (432, "raise")},
    "mini_nerdle": {1: (544, "4*7=28")},
    "nerdle": {1: (53556, None), 10: (53512, None)},
    "primel": {1: (29076, None), 20: (29011, None)},
}

TABLE4_FUNNEL = {  # game -> survivors after V_0 (all openers), V_1, V_2, ...
    "wordle_original": [12972, 12453, 1711, 324, 138, 1],
}

EXACT = {("wordle_original", "salet", False): 7920, ("wordle_original", "salet", True): 8122}

OPTIMUM = {"wordle_original": (7920, "salet"), "ffxivrdle": (432, "raise"), "mini_nerdle": (544, "4*7=28")}

BLINDFOLD = {"wordle_nyt_apr2022": {"allowed": 6, "secrets": 6}}
