"""The OpenAPI description of the web JSON API (served at /api/v1/openapi.json), with every
field of a position report explained, and the index served at /api/v1/."""

from __future__ import annotations

from typing import Any

from sproutsdb import __version__

STATUS_TEXT = (
    "How far the value is checked. verified: re-derived from the rules by a checker "
    "(`sproutsdb check`), or inferred from verified values; claimed: stored by a solver, "
    "an import or a table, not re-derived yet (shown, never presented as a result); "
    "refuted: a claim the verifier disproved (its value is never served). null: no value."
)
STATUS: dict[str, Any] = {
    "type": "string",
    "nullable": True,
    "enum": ["verified", "claimed", "refuted", None],
    "description": STATUS_TEXT,
}
SOURCE = (
    "Where the value comes from. stored: a fact of the store; rct: derived from a reduced "
    "canonical tree (RCT) of the store or of the shipped S6 table; node (misère): a fact the "
    "misère search stored of this position with its lands of known RCT replaced by their "
    "trees; inferred: implied by "
    "verified values of a parent or a child (see inferred_from); rules: the empty position "
    "(no move: a normal-play loss, a misère win). null: no value."
)


def _source(*values: str) -> dict[str, Any]:
    return {"type": "string", "nullable": True, "enum": [*values, None], "description": SOURCE}


def _nullable(kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "nullable": True, "description": text, **extra}


PROVENANCE = {
    "type": "object",
    "nullable": True,
    "description": (
        "Who stored the fact: id, who (user@host, token), tool, version, when (UTC), comment. "
        "For an RCT from the shipped table: {table: path, verified: how its positions were "
        "re-derived, or null when they were not (then its values are claims)}."
    ),
    "additionalProperties": True,
}
RCT_FIELDS: dict[str, Any] = {
    "rct": _nullable(
        "string", "Content id of the reduced canonical tree (misère quotient key), e.g. rct1:…"
    ),
    "rct_label": _nullable(
        "string",
        "The RCT's paper-style label h-k-O: height h, serial k among trees of that height "
        "(0 for nim-heaps, which print as their number), misère outcome O (W or L); "
        "h-k+1-O is the tree h-k plus *1. Labels depend on discovery order: ids are keys.",
    ),
    "rct_height": _nullable("integer", "Height of the RCT."),
    "rct_source": _nullable(
        "string",
        "Where the RCT comes from: store (its pos_rct map), table (the shipped S6 table), "
        "lands (the sum of the lands' RCTs).",
        enum=["store", "table", "lands", None],
    ),
    "rct_status": {
        **STATUS,
        "description": "Status of the map position → RCT. " + STATUS_TEXT,
    },
    "rct_provenance": PROVENANCE,
    "rct_note": _nullable(
        "string",
        "Why a position's RCT (the sum of its lands' RCTs) was not computed: the sum could "
        "take more work than the page allows; the lands' own RCTs are still shown.",
    ),
    "rct_problem": _nullable(
        "string",
        "Why the store's RCT of this key cannot be used (e.g. a pos_rct naming an RCT the "
        "store lacks); the other values are still answered.",
    ),
}
MISERE_FIELDS: dict[str, Any] = {
    "misere": _nullable("string", "Misère outcome for the player to move.", enum=["W", "L", None]),
    "misere_source": _source("stored", "node", "rct", "inferred", "rules"),
    "misere_status": STATUS,
    "misere_provenance": PROVENANCE,
}
REPLY = {
    "type": "object",
    "nullable": True,
    "description": (
        "Only on children of a loss: a child of this child that is a loss in that play "
        "(verified ones preferred): the stored reply that refutes the move. Null: none found."
    ),
    "properties": {
        "position": {"type": "string"},
        "status": STATUS,
        "source": {"type": "string", "description": SOURCE},
    },
}
LAND = {
    "type": "object",
    "description": "One land (independent component) of the position.",
    "properties": {
        "land": {"type": "string", "description": "The land's canonical key."},
        "lives": {"type": "integer", "description": "Lives (moves left at most)."},
        "nimber": _nullable("integer", "Normal-play nimber (Grundy value) of the land."),
        "nimber_source": _source("stored", "rct"),
        "nimber_status": {
            **STATUS,
            "description": "Status of the nimber shown. " + STATUS_TEXT,
        },
        "status": {
            **STATUS,
            "description": "Status of the stored nimber record (null: none stored).",
        },
        "provenance": PROVENANCE,
        "verified_by": {**PROVENANCE, "description": "Who marked the stored nimber verified."},
        "refutation": _nullable(
            "object", "Why a claimed nimber was refuted (claimed value, evidence, proven value)."
        ),
        **MISERE_FIELDS,
        "r1": _nullable(
            "string",
            "The land's R1 class (misère paper) from its nimber and misère outcome: null "
            "(the class named null: normal loss, misère win; not missing data), trap (loss "
            "in both), inverter (nimber 1, misère loss), higher inverter (nimber > 1, misère "
            "loss), gremlin (nimber 1, misère win), higher switch (nimber > 1, misère win). "
            "JSON null when the nimber or the misère outcome is unknown.",
            enum=["null", "trap", "inverter", "higher inverter", "gremlin", "higher switch", None],
        ),
        "r1_status": {**STATUS, "description": "verified when both values it rests on are."},
        **RCT_FIELDS,
    },
}
POSITION_PROPS: dict[str, Any] = {
    "position": {"type": "string", "description": "Canonical key (lands joined by +, ! empty)."},
    "lives": {"type": "integer", "description": "Lives of the position."},
    "lands": {"type": "array", "items": LAND, "description": "Its lands, each with its values."},
    "nimber": _nullable("integer", "Normal-play nimber: the XOR of the lands' nimbers."),
    "nimber_source": _source("stored", "rct", "rules"),
    "nimber_status": STATUS,
    "outcome": _nullable(
        "string",
        "Normal-play outcome for the player to move (L iff nimber 0); may be inferred "
        "when the nimber is unknown.",
        enum=["W", "L", None],
    ),
    "outcome_source": _source("stored", "rct", "inferred", "rules"),
    "outcome_status": STATUS,
    **MISERE_FIELDS,
    **RCT_FIELDS,
    "inferred_from": _nullable(
        "object",
        "For an inferred outcome, per play (normal, misere), why: e.g. 'a move from 0*8, a "
        "verified loss' (every child of a loss is a win) or 'a move to X, a verified loss'.",
    ),
    "winning_normal": _nullable(
        "boolean",
        "Only on children: true when moving to this child wins in normal play (the child "
        "is a loss), false when it does not, null when unknown.",
    ),
    "winning_misere": _nullable("boolean", "As winning_normal, in misère play."),
    "reply_normal": REPLY,
    "reply_misere": REPLY,
    "conflict_normal": _nullable(
        "string", "Only on children of a verified loss whose own value says L: the conflict."
    ),
    "conflict_misere": _nullable("string", "As conflict_normal, in misère play."),
}
PROOF = {
    "type": "object",
    "nullable": True,
    "description": (
        "What proves the outcome in one play, as far as the store shows it. A loss: "
        "children (how many) and refuted (how many have a stored reply, see reply_*); a "
        "win: move, a child that is a loss (verified ones preferred), and move_status."
    ),
    "properties": {
        "outcome": {"type": "string", "enum": ["W", "L"]},
        "status": STATUS,
        "source": {"type": "string", "description": SOURCE},
        "children": {"type": "integer"},
        "refuted": {"type": "integer"},
        "move": _nullable("string", "A winning move (a child that loses)."),
        "move_status": STATUS,
    },
}
REPORT = {
    "type": "object",
    "properties": {
        **POSITION_PROPS,
        "children": {
            "type": "array",
            "description": "The engine's distinct canonical children, each with the values above.",
            "items": {"type": "object", "properties": POSITION_PROPS},
        },
        "children_count": {"type": "integer", "description": "How many children there are."},
        "children_note": _nullable(
            "string",
            "Why children are missing or cut: the engine did not list them within the page's "
            "time limit, refused the position, or more than the page lists. Null: all listed.",
        ),
        "replies_note": _nullable("string", "Why replies were not searched, when they were not."),
        "proof": {
            "type": "object",
            "properties": {"normal": PROOF, "misere": PROOF},
            "description": "The proof per play (see proof).",
        },
        "drawing": {
            "type": "object",
            "description": (
                "Sprouts stores only: a picture of the position (server/sprouts_drawing.py), "
                "not a planar embedding. regions: boxes {x, y, w, h, label (the region's "
                "notation), boundaries: [{points: [{x, y, label (a letter, or empty), lives, "
                "again (a spot met the second time on its walk)}], closed}]}, each boundary the "
                "walk through its spots in the notation's order; links: {x1, y1, x2, y2, label}, "
                "the two copies of a spot written in two regions; lands: frames {x, y, w, h, "
                "label} when there are several; width, height, spots, lives; note: why nothing "
                "is drawn (the empty position, or more than 24 lives: 8 isolated spots' worth)."
            ),
        },
        "rct_tree": _nullable(
            "object",
            "The RCT as nested {nim: n} (a nim-heap leaf) or {children: [...]}; null when "
            "unknown or larger than the page draws.",
        ),
        "r1": {
            "type": "object",
            "description": (
                "The R1 note's misère rule (solver/extras/r1.py) on the position: classes (each "
                "land's R1 class), nim_sum, case (1-4, null when none applies), applies, the "
                "move (land and land_class, to and to_class: what the land becomes), moved_to "
                "(the position reached), result_loses_by_note (whether the note's criterion "
                "calls it a loss), unknown_children, reason, and status (of the lands' "
                "classes). The note's claim, not a proof: Sprouts is not an R1 game, and "
                "bench/r1.py measures how often the move fails."
            ),
        },
    },
}
RESULT_ROW = {
    "type": "object",
    "properties": {
        "position": {"type": "string", "description": "The position, e.g. 0*12 (Cram: 4x7)."},
        "game": {"type": "string", "description": "The position's game: sprouts, cram."},
        "play": {"type": "string", "enum": ["normal", "misere"]},
        "statement": _nullable(
            "object", "The certificate's statement: {nimber: k} or {outcome: W|L}; null: none."
        ),
        "file": _nullable("string", "The certificate, relative to the package (data/results/)."),
        "checked": {
            "type": "boolean",
            "description": "Whether this version re-derived the certificate from the rules.",
        },
        "mark": {
            "type": "string",
            "description": "certificate here and checked / certificate here / literature only.",
        },
        "facts": _nullable("integer", "Facts in the certificate."),
        "literature": {
            "type": "object",
            "description": (
                "The literature's outcome, nimber (0 for a loss; Cram: nimber_above, a lower "
                "bound), proof sizes (glop_2010_size, smallest_known_size; misère "
                "positions_beyond_s6) and sources."
            ),
        },
        "agrees": _nullable("boolean", "Whether the statement agrees with the literature."),
        "href": {"type": "string", "description": "The position's page."},
    },
}
RESULTS = {
    "type": "object",
    "properties": {
        "results": {"type": "array", "items": RESULT_ROW},
        "cram": {
            "type": "array",
            "items": RESULT_ROW,
            "description": "Cram's empty boards RxC in normal play, the same rows.",
        },
        "sources": {"type": "object", "description": "Citation of each source key."},
    },
}
ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string", "description": "What went wrong, one line."}},
}


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.0 document of the API."""

    def answer(text: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"description": text, "content": {"application/json": {"schema": schema}}}

    return {
        "openapi": "3.0.3",
        "info": {
            "title": "sproutsdb web API",
            "version": __version__,
            "description": (
                "Read-only values of Sprouts positions from a sproutsdb store: normal-play "
                "nimbers, misère outcomes, RCTs, each with its status and source, and every "
                "child. Nothing is ever written; only GET is served."
            ),
        },
        "paths": {
            "/api/v1/position": {
                "get": {
                    "summary": "A position's values and its children's",
                    "parameters": [
                        {
                            "name": "pos",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": "A position in GLOP notation, e.g. 0*6 or 0.AB|AB.",
                        },
                        {
                            "name": "from",
                            "in": "query",
                            "required": False,
                            "schema": {"type": "string"},
                            "description": (
                                "The position the user came from: when it is a verified loss "
                                "and pos is one of its children, pos is reported a win "
                                "(source inferred)."
                            ),
                        },
                    ],
                    "responses": {
                        "200": answer("The report.", REPORT),
                        "400": answer("Unreadable or too large position.", ERROR),
                        "500": answer(
                            "A fault of the server (logged); never a dropped link.", ERROR
                        ),
                    },
                }
            },
            "/api/v1/results": {
                "get": {
                    "summary": "The results library: what the project proves about 0*n",
                    "description": (
                        "One row per statement (play, position): the shipped certificate's "
                        "statement ({nimber: k} or {outcome: W|L}), its file, its fact count "
                        "and whether this version re-derived it (checked), beside the "
                        "literature's outcome, proof sizes and sources (keys of `sources`); "
                        "href is the position's page. The same as `sproutsdb results --json`."
                    ),
                    "responses": {"200": answer("The rows and sources", RESULTS)},
                }
            },
            "/api/v1/health": {
                "get": {
                    "summary": "Whether the server answers",
                    "responses": {"200": answer("{status: SERVING}", {"type": "object"})},
                }
            },
            "/api/v1/openapi.json": {
                "get": {
                    "summary": "This document",
                    "responses": {"200": answer("OpenAPI 3.0", {"type": "object"})},
                }
            },
            "/api/v1/": {
                "get": {
                    "summary": "The index of the API",
                    "responses": {"200": answer("Endpoints", {"type": "object"})},
                }
            },
        },
    }


def index() -> dict[str, Any]:
    """What /api/v1/ answers: the endpoints, with an example each."""
    return {
        "api": "sproutsdb web API, read-only",
        "version": __version__,
        "endpoints": {
            "/api/v1/position?pos=P": "P's values and its children's, each with status and "
            "source (example: /api/v1/position?pos=0*6)",
            "/api/v1/results": "the results library: certificates beside the literature",
            "/api/v1/health": "{status: SERVING}",
            "/api/v1/openapi.json": "the OpenAPI 3.0 description, every field explained",
        },
    }
