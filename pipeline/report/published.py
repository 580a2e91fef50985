"""Published figures the report and `stage=reproduce` put beside this pipeline's own (the sources' tables;
facts, not results).  Everything the project checks lives here, in the repository: nothing is read from
outside it at run or test time.

Sources (cited per figure below):
- [paper]  Cunanan & Thielscher, "Optimal Wordle strategies", IJCAI 2023: Tables 1-4 and the text.
- [blind]  Poirrier's blindfold-Wordle note (set cover, f* = 6 and f* = 10).
- [write]  the write-up on simple Wordle strategies (random candidate, elimination, opener ranking).
- [exact]  exhaustive solvers that agree (Selby's solver; WordleBot's for the 3158-answer list).
- [mm]     Koyama & Lai, "An optimal Mastermind strategy", J. Recreational Mathematics 25 (1993): the paper's
           reference for general guessing games.
"""

TABLE1_WORDLE = {  # [paper] Table 1: greedy valuation combination -> (total, opener), original Wordle
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

TABLE1_BEST = {"wordle_original": (7944, 11)}  # [paper] text: best total of all 325 combinations, combinations at it

TABLE2_UPPER_BOUNDS = {  # [paper] Tables 2 and 3: game -> {breadth: (total, opener or None)}
    "wordle_original": {1: (7944, "trace"), 5: (7921, "salet"), 10: (7920, "salet"), 20: (7920, "salet")},
    "ffxivrdle": {1: (432, "raise")},
    "mini_nerdle": {1: (544, "4*7=28")},
    "nerdle": {1: (53556, None), 10: (53512, None)},
    "primel": {1: (29076, None), 20: (29011, None)},
}
# [paper] Table 3's Nerdle and Primel figures came from slightly different valuation and tie-break versions:
# a total at or below them for the same n passes.
AT_OR_BELOW_GAMES = ("nerdle", "primel")

TREE_MAX_GUESSES = {"wordle_original": (10, 5)}  # [paper] the 7920 tree (n = 10) finds every secret within 5

PROVEN_BY_LEVEL = {"ffxivrdle": 3, "mini_nerdle": 3}  # [paper] Table 3: n = 1's total proven optimal by V3

TABLE4_FUNNEL = {  # [paper] Table 4: game -> survivors after V_0 (all openers), V_1, V_2, ... (UB = 7920)
    "wordle_original": [12972, 12453, 1711, 324, 138, 1],
}

TABLE4_VALUES = {"wordle_original": ("salet", [6881, 7686, 7812, 7827, 7919])}  # [paper] Table 4: V_1..V_5

CLOSURE = {"wordle_original": ("salet", 5605)}  # [paper] SALET's 148 class bounds sum to 5605; 2315 + 5605 = 7920

EXACT = {  # [paper], [exact]: (game, opener, hard mode) -> V*(opener, S) within the game's 6 guesses
    ("wordle_original", "salet", False): 7920,
    ("wordle_original", "salet", True): 8122,
    ("wordle_nyt_jul2023", "tarse", False): 11219,  # WordleBot's exhaustive solver, about 55 core-hours
}
EXACT_MAX_GUESSES = {("wordle_original", "salet", False): 5, ("wordle_original", "salet", True): 6}

OPTIMUM = {"wordle_original": (7920, "salet"), "ffxivrdle": (432, "raise"), "mini_nerdle": (544, "4*7=28")}

BLINDFOLD = {"wordle_nyt_apr2022": {"allowed": 6, "secrets": 6}}  # [blind] f* by where the guesses come from

BLINDFOLD_SETS = {  # [blind] fixed guesses that separate every secret of wordle_nyt_apr2022
    "allowed": ["combo", "fatty", "grrrl", "spuds", "venge", "whilk"],
    "secrets": ["catty", "frond", "rumba", "spill", "verge", "whack"],  # the unique 6-set among the answers
}

BLINDFOLD_ALL_WORDS = {  # [blind] every allowed word a possible secret (S = G = 12974): f* = 10, nine impossible
    "f_star": 10,
    "set": ["defer", "myrrh", "going", "ajwan", "beaux", "klett", "punny", "spods", "villi", "zocco"],
}

BLINDFOLD_HYBRID = {  # [blind] "3 initial fixed guesses, then ... tiny 2-deep decision trees" solve every puzzle
    "fixed": 3,
    "tree_depth": 2,  # read as 2 adaptive guesses that name the answer, then the winning guess (stage.depth=3)
    "worst_case": 6,  # "solve all the Wordle puzzles": within the game's 6 guesses (3 + 2 + 1)
}

SIMPLE = {  # [write] average guesses on Wordle (approximate, the 2022 lists of its time); elimination opens TARES
    "random_candidate": 4.888,  # random consistent candidate, every allowed word possible
    "elimination": 4.502,  # elimination guesses after TARES, answer list unknown
    "elimination_answers": 3.899,  # elimination knowing the answer list
}
SIMPLE_OPENER = "tares"

OPENERS_WRITEUP = {  # [write] opener -> measure -> the figure exactly as the write-up prints it
    "soare": {"avg_bits": 6.245, "avg_remaining": 273.92},  # its best starter
    "aahed": {"avg_bits": 4.468, "avg_remaining": 1048.32},  # its worked example of a poor starter
}
# [write] its lists: 2309 answers and 12953 allowed guesses (the original 12972 without the 19 words the NYT
# dropped as offensive; agora fibre lynch pupal slave wench still allowed).  Ours (wordle_nyt_apr2022): the
# same 2309 answers, 12974 guesses (those 19 words and koran, quran more: 21 words, 0.16 %).  Remaining words
# are counted among all allowed guesses, so ours are about 0.2 % more; the bits move by under 0.001.
OPENERS_LISTS = {"writeup": (2309, 12953), "ours": (2309, 12974)}
OPENERS_TOLERANCE = {"avg_bits": ("absolute", 0.005), "avg_remaining": ("relative", 0.005)}  # judged within these

GENERAL = {"mastermind": 5625}  # [mm] MinTotal of Mastermind, 4 pegs x 6 colours (average 5625 / 1296 = 4.340)
