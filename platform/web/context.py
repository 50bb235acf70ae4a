from engines.games import available_games, get_game


def games(request):
    """Every page's navigation lists the games."""
    return {"nav_games": [(g, get_game(g).name) for g in available_games()]}
