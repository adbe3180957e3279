"""The search's tuning: weights, floors and limits of :class:`bot.domain.search.matcher.Matcher`
(each checked by ``benchmarks/relevance.py``; the design in :mod:`bot.domain.search`)."""

FUZZY_WEIGHT = 0.6
"""The fuzzy (coverage) score's share of the fused score; BM25 has the rest."""

RELATIVE_FLOOR = 0.6
"""A post is a good match only when it scores at least this share of the best post's score (at
most 100): the results stop where the matches stop."""

CONFIDENT_COVERAGE = 0.6
"""With no telling specific term in the query, its best post is a match (``confident``) when it
covers at least this weighted share (0..1) of the query's concepts the catalog holds."""

UNLINKED_PENALTY = 20.0
"""Score points a post without a link (``url: null``) is ranked below its score: it never ranks
above (nor first before) a linked post that answers about as well (this many points below it or
closer); a clearly better unlinked post (an exact title) still leads."""

ASKED_UNLINKED_PENALTY = 5.0
""":data:`UNLINKED_PENALTY` for a post without a link that holds three or more of the question's
telling terms: the question is about it (holdout round i, 2026-12-07: questions about the newest
posts, which have no link yet, found them second or third behind linked posts on the same subject;
a general symptom, ``my ttft is too high``, still leads with a post one can open). One holding all
of them, three or more, when no linked post does, is not lowered at all (holdout round j: a question
about the unlinked bitwise-consistent RL post naming Nemotron found the Nemotron launch first)."""

MAX_TOTAL = 100
"""At most this many good matches are counted and paged through."""

MAX_CONCEPTS = 12
"""At most this many concepts (words, bigrams) of a query are scored: the rarest ones."""

MAX_RAW_CONCEPTS = 32
"""At most this many concepts are read from a query before the rarest are chosen."""

MAX_FUZZY_WORDS = 6
"""At most this many unknown words of a query are typo-corrected (each costs a rapidfuzz scan)."""

SIMILARITY_CHARS = 100
"""Only this many characters of a query's Latin (and Chinese) text are compared by rapidfuzz."""

EXACT_TITLE_BONUS = 5.0
"""Score points for a title that says a query of several Latin words as typed, or joined as one
word (``semantic routing`` in one title, ``semantic router`` in the others: the same term to the
glossary; ``paged attention`` as ``PagedAttention``)."""

TRACK_HINT_BONUS = 10.0
"""Score points for a post of the track whose name (or alias: ``AMD`` of hardware) the query holds,
or of the platform track its platform terms belong to (``vllm on Gaudi``: ``TopicIndex._platform_track``),
the track the reply points at: among posts saying its words about as well, the one on that subject.
10 rather than 5 (``benchmarks/relevance.py``, task H7): hit@1 of ``hardware-symptoms-dev`` 0.773 ->
0.841 with no dev row lost; 15 lost top-1 rows of ``questions-dev``, ``problems-zh-b`` and
``problems-en-c``."""

EVERYDAY_CAP = 0.75
"""An everyday English word of a query (no glossary form, no field word: ``setup``, ``full``)
weighs at most this share of its heaviest field concept (``TopicIndex._cap_everyday``): ``pd
disagg setup guide`` is about PD disaggregation, not about posts that say "setup"."""

SUBJECT_FACTOR = 2.0
"""A concept that is the subject of a symptom word (``TTFT`` of ``why is my TTFT high with long
prompts``) weighs this many times its idf weight: the question is about that measure."""

_SIM_SYNONYM = 0.9  # the similarity of a synonym (typo corrections, completions: spelling.SIM_*)

_CANDIDATES = 40
"""At most this many posts (the best before similarity) are re-scored with rapidfuzz; more when a
later page is asked for."""

TITLE_SUBJECT_BONUS = 0.5
"""The share of its distance below 100 a post gains when its title names all the query's concepts
by another form than the query's words (by their share of its weight; :mod:`bot.domain.search.subject`):
the post about a term leads the posts that mention it. ``benchmarks/relevance.py`` (top-1 rows of
every set against 2026.12.15): 0.5 gains 3 rows and loses 1 (``多机多卡怎么部署``: the Ray multi-node
post now leads "Distributed Inference"); 0.45 leaves ``kubernetes`` unchanged; 0.55+ loses 2."""

UNNAMED_LAUNCH_PENALTY = 15.0
"""Score points a post of the model-launch tracks only (``launch_tracks``) loses when its title names
none of the question's terms: ``显存不够`` (out of memory) lists the posts on memory before the
GLM-4.5 launch that mentions it in a question, while ``GLM-4.5 显存不够`` keeps it first."""

GENERATION_POINTS = 15.0
"""Score points a post gains when its title or tags name a chip of the generation of the chip the
question names (``gpu_generations``: ``deepseek v3 on h100s`` and the H200 Wide-EP post), and loses
when they name only chips of other generations (the GB300 post): :mod:`bot.domain.search.fit`."""

RECAP_PENALTY = 15.0
"""Score points a recap post (``recap_tags``: a meetup, a year's retrospective) loses for a question
of one term its title does not name (``tpu``: the Korea meetup below the TPU posts): :mod:`bot.domain.search.fit`."""

DEFINITION_BONUS = 15.0
"""Score points the post introducing a term gains for a question asking what the term is (``what is
kv cache``: the PagedAttention launch post before PegaFlow's external KV cache):
:mod:`bot.domain.search.define`."""

PLATFORM_TITLE_POINTS = 3.0
"""Score points a post gains when its title names the platform a question names (a glossary term of
a ``platform_tracks`` track that is no chip: ``AMD``, ``Radeon``, ``TPU``, ``Gaudi``): it is about running
there, where a post tagged with it names it among others (the Triton attention backend runs on NVIDIA,
AMD and Intel): :mod:`bot.domain.search.fit`. A point or two of coverage, so a post on the question's
other terms still leads."""
